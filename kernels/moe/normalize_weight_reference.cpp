//===- normalize_weight_reference.cpp - the C++ reference -----------------===//
#include "kernels/moe/normalize_weight.h"

#include <cstdint>

namespace tk::kernels::moe {

using namespace tk::dsl;

void normalizeWeightReference(const float *weights, int64_t tokens, int64_t k, float *denominator, float *normalized) {
  for (int64_t t = 0; t < tokens; ++t) {
    float d = kNormalizeWeightSeed;
    for (int64_t s = 0; s < k; ++s)
      d = d + weights[t * k + s];
    denominator[t] = d;
    for (int64_t s = 0; s < k; ++s)
      normalized[t * k + s] = weights[t * k + s] / d;
  }
}

} // namespace tk::kernels::moe
