//===- topk_gate_reference.cpp - the C++ reference ------------------------===//
#include "kernels/moe/topk_gate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace tk::kernels::moe {

using namespace tk::dsl;

void topkGateReference(const float *scores, int64_t tokens, int64_t experts, int64_t k, int64_t *topkIdx) {
  std::vector<int64_t> order(experts);
  // Greater first, +0 == -0 (compared as values), NaN last; stable: ties keep the lower index.
  auto before = [](float a, float b) {
    if (std::isnan(a) || std::isnan(b))
      return !std::isnan(a) && std::isnan(b);
    return a > b;
  };
  for (int64_t t = 0; t < tokens; ++t) {
    const float *row = scores + t * experts;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return before(row[a], row[b]); });
    std::copy(order.begin(), order.begin() + k, topkIdx + t * k);
  }
}

} // namespace tk::kernels::moe
