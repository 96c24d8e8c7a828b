//===- reduce_fused_reference.cpp - the C++ reference ---------------------===//
#include "kernels/moe/reduce_fused.h"

#include <cmath>
#include <cstdint>

namespace tk::kernels::moe {

using namespace tk::dsl;

void reduceFusedReference(const float *x, int64_t m, int64_t hidden, const float *xSf, const float *weights,
                          const int32_t *tokenTopkToPos, int64_t tokens, int64_t topk, const float *sf, float *out) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < hidden; ++h) {
      float acc = 0.0f;
      for (int64_t s = 0; s < topk; ++s) {
        const int32_t p = tokenTopkToPos[t * topk + s];
        if (p < 0 || p >= m)
          continue;
        float w = weights ? weights[t * topk + s] : 1.0f;
        if (xSf)
          w = w * xSf[p];
        acc = std::fmaf(x[p * hidden + h], w, acc);
      }
      out[t * hidden + h] = sf ? acc * sf[0] : acc;
    }
}

} // namespace tk::kernels::moe
