//===- fused_mapping_check.cpp --------------------------------------------===//
#include "checks/fused_mapping_check.h"
#include "kernels/moe/fused_mapping.h"

#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const FusedMappingCase &c) {
  // "NxK e=local/total A=a": what bench/peers/moe_layout_rows.py reads.
  using S = FusedMappingCase::Sizing;
  return std::to_string(c.tokens) + "x" + std::to_string(c.topk) + " e=" + std::to_string(c.experts / c.ranks) + "/" +
         std::to_string(c.experts) + " A=" + std::to_string(c.alignment) +
         (c.sizing == S::UpperBound ? " bound"
          : c.sizing == S::Short    ? " short"
                                    : "") +
         (c.edges ? " edges" : "");
}

CheckResult checkFusedMapping(GpuSession *gpu, tk_context ctx, const FusedMappingCase &c, bool time) {
  using S = FusedMappingCase::Sizing;
  CheckResult r;
  const int64_t n = c.tokens, k = c.topk, e = c.experts / c.ranks, f = n * k;
  std::vector<int64_t> ids = moeTopkIdx(n, k, c.experts, c.ranks, c.seed);
  std::mt19937_64 rng(c.seed + 5);
  if (c.edges)
    for (int64_t &v : ids)
      if (rng() % 7 == 0)
        v = rng() % 3 == 0 ? e + (int64_t)(rng() % 9) : rng() % 3 == 1 ? -2 - (int64_t)(rng() % 9) : (1ll << 33) + 1;
  const kernels::moe::FusedMapping exact = kernels::moe::fusedMappingReference(ids.data(), n, k, e, c.alignment);
  const int64_t bound = tk_fused_mapping_max_positions(n, k, e, c.alignment);
  const int64_t m = c.sizing == S::Exact ? exact.positions : c.sizing == S::UpperBound ? bound : exact.positions - 1;
  const kernels::moe::FusedMapping ref =
      c.sizing == S::Short ? exact : kernels::moe::fusedMappingReference(ids.data(), n, k, e, c.alignment, m);

  // Each output in a buffer with 64 guard elements past its end, poisoned.
  constexpr int64_t kGuard = 64;
  Placement p{gpu};
  std::vector<int64_t> placedIds = ids; // at least one element: the device copy of N = 0 ids needs a source
  placedIds.resize(std::max<size_t>(ids.size(), 1), -1);
  void *dids = p.put(placedIds.data(), placedIds.size() * 8);
  const std::vector<int64_t> sizes = {m, m, m, f, e, e, e};
  std::vector<std::vector<int32_t>> got;
  std::vector<void *> placed;
  std::vector<tk_tensor> outs;
  for (size_t i = 0; i < sizes.size(); ++i) {
    got.emplace_back(sizes[i] + kGuard);
    placed.push_back(p.poisoned(got[i].data(), got[i].size() * 4, 0xEE));
    outs.push_back(i == 3 ? p.tensor(placed[i], TK_I32, {n, k}) : p.tensor(placed[i], TK_I32, {sizes[i]}));
  }
  tk_tensor tids = p.tensor(dids, TK_I64, {n, k});
  int64_t total = -1;
  auto call = [&](int64_t *readTotal) {
    return tk_get_fused_mapping(ctx, &tids, (int32_t)e, (int32_t)c.alignment, &outs[0], &outs[1], &outs[2], &outs[3],
                                &outs[4], &outs[5], &outs[6], readTotal, nullptr);
  };
  const tk_status s = call(c.sizing == S::UpperBound ? nullptr : &total);
  if (c.sizing == S::Short) { // the expected failure, the total reported
    if (s != TK_ERROR_INVALID_ARGUMENT || total != exact.positions) {
      r.called(s == TK_SUCCESS ? TK_ERROR_INTERNAL : s);
      r.error = "expected TK_ERROR_INVALID_ARGUMENT and " + std::to_string(exact.positions) + " positions, got " +
                std::to_string(s) + " and " + std::to_string(total) + (s ? ": " + r.error : "");
      return r;
    }
  } else if (!r.called(s)) {
    return r;
  }
  for (size_t i = 0; i < sizes.size(); ++i)
    p.get(got[i].data(), placed[i], got[i].size() * 4);
  const std::vector<const std::vector<int32_t> *> want = {&ref.posToExpert,    &ref.posToToken,  &ref.posToTokenTopk,
                                                          &ref.tokenTopkToPos, &ref.expertStart, &ref.expertEnd,
                                                          &ref.alignedCounts};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const bool positionTable = i < 3;
    for (int64_t j = 0; j < sizes[i]; ++j) // a short table holds the reference's first M entries
      if (!(positionTable && c.sizing == S::Short))
        r.outMismatches += got[i][j] != (*want[i])[j];
      else
        r.outMismatches += got[i][j] != (*want[i])[j] && got[i][j] != -1;
    for (int64_t j = sizes[i]; j < sizes[i] + kGuard; ++j) // nothing past the end
      r.outMismatches += got[i][j] != (int32_t)0xEEEEEEEE;
  }
  if (c.sizing == S::Exact)
    r.outMismatches += total != exact.positions;
  r.bytes = 8.0 * f + 4.0 * (3 * m + f + 3 * e);
  if (gpu && time && c.sizing == S::UpperBound)
    r.ms = gpu->medianMs([&] { call(nullptr); }, 3, 20);
  return r;
}

} // namespace tk::checks
