//===- swiglu_per_token_cast_reference.cpp - the C++ reference ------------===//
#include "kernels/quant/swiglu_per_token_cast.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tk::kernels::quant {

using namespace tk::dsl;

void swigluPerTokenCastReference(const SwigluRows &in, const SwigluPerTokenCastConfig &c, const ExpFunction &expf,
                                 int64_t rowBegin, int64_t rowEnd, uint8_t *out, float *sf, int64_t sf0, int64_t sf1,
                                 int64_t *counts) {
  const int64_t h = c.hidden;
  auto value = [&](int64_t i, int64_t j) -> float {
    if (c.in == DType::BF16)
      return bf16ToF32(static_cast<const uint16_t *>(in.x)[i * 2 * h + j]);
    return static_cast<const float *>(in.x)[i * 2 * h + j];
  };
  std::vector<float> y(h);
  for (int64_t p = rowBegin; p < rowEnd; ++p) {
    if (in.posToExpert && in.posToExpert[p] < 0)
      continue; // skipped: neither written nor counted
    float w = 1.0f;
    if (in.weights) {
      int32_t idx = in.posToTokenTopk[p];
      w = idx >= 0 && idx < in.numWeights ? in.weights[idx] : 0.0f;
    }
    for (int64_t j = 0; j < h; ++j) {
      float l = value(p, j), r = value(p, h + j);
      if (counts && c.clamp) {
        counts[0] += l > *c.clamp;
        counts[1] += r > *c.clamp;
        counts[2] += r < -*c.clamp;
      }
      y[j] = swigluForwardReference(l, r, c.clamp, expf);
      if (in.weights)
        y[j] = y[j] * w;
    }
    for (int64_t gi = 0; gi < c.groups(); ++gi) {
      const int64_t begin = gi * c.group, end = std::min(h, begin + c.group);
      float amax = 0.0f;
      for (int64_t j = begin; j < end; ++j)
        amax = std::fmax(amax, std::fabs(y[j]));
      Scale s = scaleRule(amax, Format::E4M3, c.roundSf, c.sfClampBits);
      sf[p * sf0 + gi * sf1] = s.sf;
      for (int64_t j = begin; j < end; ++j)
        out[p * h + j] = encodeE4M3(y[j] * s.inv);
    }
  }
}

} // namespace tk::kernels::quant
