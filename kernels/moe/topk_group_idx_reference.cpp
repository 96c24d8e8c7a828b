//===- topk_group_idx_reference.cpp - the C++ reference -------------------===//
#include "kernels/moe/topk_group_idx.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace tk::kernels::moe {

using namespace tk::dsl;

namespace {
/// dsl/Select.h's order on values: greater first, NaN last (+0 == -0 as values).
bool before(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return !std::isnan(a) && std::isnan(b);
  return a > b;
}
} // namespace

void topkGroupIdxReference(const float *scores, int64_t tokens, int64_t groups, int64_t perGroup, int64_t topkSum,
                           int64_t topkGroups, int64_t *groupIdx) {
  std::vector<float> groupScore(groups), row(perGroup);
  std::vector<int64_t> order(groups);
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t g = 0; g < groups; ++g) {
      const float *s = scores + (t * groups + g) * perGroup;
      std::copy(s, s + perGroup, row.begin());
      std::stable_sort(row.begin(), row.end(), before);
      // -0 and +0 sum as +0 (their rank is the same either way).
      auto value = [](float v) { return v == 0.0f ? 0.0f : v; };
      groupScore[g] = topkSum == 1 ? value(row[0]) : value(row[0]) + value(row[1]);
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return before(groupScore[a], groupScore[b]); });
    std::copy(order.begin(), order.begin() + topkGroups, groupIdx + t * topkGroups);
  }
}

} // namespace tk::kernels::moe
