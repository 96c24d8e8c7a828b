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
  std::vector<float> scores = makeScores(TopkGateCase{c.tokens, c.groups * c.perGroup, 1, c.values, c.seed});
  std::vector<int64_t> ref(c.tokens * c.topkGroups);
  kernels::moe::topkGroupIdxReference(scores.data(), c.tokens, c.groups, c.perGroup, c.topkSum, c.topkGroups,
                                      ref.data());
  return checkScoresToIndices(gpu, scores, {c.tokens, c.groups, c.perGroup}, ref, {c.tokens, c.topkGroups},
                              [&](const tk_tensor *s, tk_tensor *out) {
                                return tk_topk_sum_and_topk_group_idx(ctx, s, (int32_t)c.topkSum,
                                                                      (int32_t)c.topkGroups, out, nullptr);
                              },
                              time);
}

} // namespace tk::checks
