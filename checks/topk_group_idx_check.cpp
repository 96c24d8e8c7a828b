//===- topk_group_idx_check.cpp -------------------------------------------===//
#include "checks/topk_group_idx_check.h"
#include "kernels/moe/topk_group_idx.h"

#include <vector>

namespace tk::checks {

std::string describe(const TopkGroupIdxCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.groups) + "x" + std::to_string(c.perGroup) +
         " q=" + std::to_string(c.topkSum) + " kg=" + std::to_string(c.topkGroups) +
         (c.values == ScoreValues::Ties ? " ties" : c.values == ScoreValues::Extremes ? " extremes" : "");
}

CheckResult checkTopkGroupIdx(GpuSession *gpu, tk_context ctx, const TopkGroupIdxCase &c, bool time) {
  CheckResult r;
  const int64_t e = c.groups * c.perGroup;
  std::vector<float> scores = makeScores(TopkGateCase{c.tokens, e, 1, c.values, c.seed});
  std::vector<int64_t> ref(c.tokens * c.topkGroups), got(ref.size());
  kernels::moe::topkGroupIdxReference(scores.data(), c.tokens, c.groups, c.perGroup, c.topkSum, c.topkGroups,
                                      ref.data());
  Placement p{gpu};
  const size_t scoreBytes = scores.size() * 4, idxBytes = got.size() * 8;
  void *ds = p.put(scores.data(), scoreBytes), *dout = p.poisoned(got.data(), idxBytes, 0xEE);
  tk_tensor ts = p.tensor(ds, TK_F32, {c.tokens, c.groups, c.perGroup});
  tk_tensor tout = p.tensor(dout, TK_I64, {c.tokens, c.topkGroups});
  auto call = [&] {
    return tk_topk_sum_and_topk_group_idx(ctx, &ts, (int32_t)c.topkSum, (int32_t)c.topkGroups, &tout, nullptr);
  };
  if (!r.called(call()))
    return r;
  p.get(got.data(), dout, idxBytes);
  for (size_t i = 0; i < got.size(); ++i)
    r.outMismatches += got[i] != ref[i];
  r.bytes = (double)scoreBytes + (double)idxBytes;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::checks
