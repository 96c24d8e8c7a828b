//===- streams_reference.cpp - the n-stream kernels' math in plain C++ ----===//
//
// Step for step the orders of streams.h (one rounding per fma, compiled
// without contraction); the sums over H in fp64 with their magnitudes.
//===----------------------------------------------------------------------===//
#include "kernels/mhc/streams.h"
#include "kernels/quant/formats.h"

#include <cmath>

namespace tk::kernels::mhc {

using quant::bf16ToF32;
using quant::f32ToBf16;

void expandForwardReference(const uint16_t *hidden, int64_t tokens, int64_t streams, int64_t h, uint16_t *out) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t m = 0; m < streams; ++m)
      for (int64_t d = 0; d < h; ++d)
        out[(t * streams + m) * h + d] = hidden[t * h + d];
}

void expandBackwardReference(const uint16_t *gradOut, int64_t tokens, int64_t streams, int64_t h,
                             uint16_t *gradHidden) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t d = 0; d < h; ++d) {
      float acc = 0.0f;
      for (int64_t m = 0; m < streams; ++m)
        acc += bf16ToF32(gradOut[(t * streams + m) * h + d]);
      gradHidden[t * h + d] = f32ToBf16(acc);
    }
}

void applyMixForwardReference(const uint16_t *x, const float *mix, int64_t tokens, int64_t streams, int64_t h,
                              uint16_t *out) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t d = 0; d < h; ++d) {
      float acc = 0.0f;
      for (int64_t m = 0; m < streams; ++m)
        acc = std::fma(mix[t * streams + m], bf16ToF32(x[(t * streams + m) * h + d]), acc);
      out[t * h + d] = f32ToBf16(acc);
    }
}

void applyMixBackwardReference(const uint16_t *gradOut, const uint16_t *x, const float *mix, int64_t tokens,
                               int64_t streams, int64_t h, bool accumulate, uint16_t *gradX, double *gradMix,
                               double *gradMixScale) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t m = 0; m < streams; ++m) {
      const int64_t row = (t * streams + m) * h;
      const float w = mix[t * streams + m];
      double sum = 0, scale = 0;
      for (int64_t d = 0; d < h; ++d) {
        const float g = bf16ToF32(gradOut[t * h + d]);
        const float acc = accumulate ? bf16ToF32(gradX[row + d]) : 0.0f;
        gradX[row + d] = f32ToBf16(std::fma(w, g, acc));
        const double p = (double)g * bf16ToF32(x[row + d]);
        sum += p, scale += std::fabs(p);
      }
      gradMix[t * streams + m] = sum, gradMixScale[t * streams + m] = scale;
    }
}

void postForwardReference(const uint16_t *x, const uint16_t *residual, const float *post, const float *comb,
                          int64_t tokens, int64_t streams, int64_t h, uint16_t *out) {
  const int64_t n = streams;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t o = 0; o < n; ++o)
      for (int64_t d = 0; d < h; ++d) {
        float acc = post[t * n + o] * bf16ToF32(x[t * h + d]);
        for (int64_t i = 0; i < n; ++i)
          acc = std::fma(comb[(t * n + i) * n + o], bf16ToF32(residual[(t * n + i) * h + d]), acc);
        out[(t * n + o) * h + d] = f32ToBf16(acc);
      }
}

void postBackwardReference(const uint16_t *gradOut, const uint16_t *x, const uint16_t *residual, const float *post,
                           const float *comb, int64_t tokens, int64_t streams, int64_t h, uint16_t *gradX,
                           uint16_t *gradResidual, double *gradPost, double *gradPostScale, double *gradComb,
                           double *gradCombScale) {
  const int64_t n = streams;
  auto dout = [&](int64_t t, int64_t o, int64_t d) { return bf16ToF32(gradOut[(t * n + o) * h + d]); };
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t d = 0; d < h; ++d) {
      float dx = post[t * n] * dout(t, 0, d);
      for (int64_t o = 1; o < n; ++o)
        dx = std::fma(post[t * n + o], dout(t, o, d), dx);
      gradX[t * h + d] = f32ToBf16(dx);
      for (int64_t i = 0; i < n; ++i) {
        float dr = comb[(t * n + i) * n] * dout(t, 0, d);
        for (int64_t o = 1; o < n; ++o)
          dr = std::fma(comb[(t * n + i) * n + o], dout(t, o, d), dr);
        gradResidual[(t * n + i) * h + d] = f32ToBf16(dr);
      }
    }
    for (int64_t o = 0; o < n; ++o) {
      double sum = 0, scale = 0;
      for (int64_t d = 0; d < h; ++d) {
        const double p = (double)bf16ToF32(x[t * h + d]) * dout(t, o, d);
        sum += p, scale += std::fabs(p);
      }
      gradPost[t * n + o] = sum, gradPostScale[t * n + o] = scale;
      for (int64_t i = 0; i < n; ++i) {
        double s = 0, a = 0;
        for (int64_t d = 0; d < h; ++d) {
          const double p = (double)bf16ToF32(residual[(t * n + i) * h + d]) * dout(t, o, d);
          s += p, a += std::fabs(p);
        }
        gradComb[(t * n + i) * n + o] = s, gradCombScale[(t * n + i) * n + o] = a;
      }
    }
  }
}

void multilayerRecomputeReference(const uint16_t *initial, const std::vector<const float *> &pre,
                                  const std::vector<const uint16_t *> &layerOutput,
                                  const std::vector<const float *> &post, const std::vector<const float *> &comb,
                                  int64_t tokens, int64_t streams, int64_t h, const std::vector<uint16_t *> &layerInput,
                                  const std::vector<uint16_t *> &residual) {
  const uint16_t *r = initial;
  for (size_t l = 0; l < pre.size(); ++l) {
    applyMixForwardReference(r, pre[l], tokens, streams, h, layerInput[l]);
    if (l < residual.size()) {
      postForwardReference(layerOutput[l], r, post[l], comb[l], tokens, streams, h, residual[l]);
      r = residual[l];
    }
  }
}

} // namespace tk::kernels::mhc
