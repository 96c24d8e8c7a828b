//===- swiglu_backward_reference.cpp - the C++ reference ------------------===//
#include "kernels/quant/swiglu_backward.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace tk::kernels::quant {

using namespace tk::dsl;

void swigluBackwardReference(const SwigluBackwardRows &in, const SwigluBackwardConfig &c, const ExpFunction &expf,
                             int64_t rowBegin, int64_t rowEnd, uint16_t *out, uint8_t *xGradFp8, float *xGradSf,
                             uint16_t *xGrad, float *rowDot) {
  const int64_t h = c.hidden, g = c.group, hg = h / g;
  std::vector<float> d(2 * h);
  for (int64_t p = rowBegin; p < rowEnd; ++p) {
    const int32_t idx = in.posToTokenTopk[p];
    const float w = idx >= 0 && idx < in.numWeights ? in.weight[idx] : 0.0f;
    double dot = 0.0; // the fp32 products summed exactly enough to judge any summation order
    for (int64_t j = 0; j < h; ++j) {
      float xv = decodeE4M3(in.xq[p * 2 * h + j]) * in.xs[p * 2 * hg + j / g];
      float yv = decodeE4M3(in.xq[p * 2 * h + h + j]) * in.xs[p * 2 * hg + hg + j / g];
      bool cx = false, cu = false, cl = false;
      if (c.clamp) {
        const float cv = *c.clamp;
        cx = xv > cv, cu = yv > cv, cl = yv < -cv;
        xv = cx ? cv : xv;
        yv = cu ? cv : cl ? -cv : yv;
      }
      const float go = bf16ToF32(in.gradOut[p * h + j]);
      const float t = 1.0f + expf(-xv);
      const float act = xv / t * yv;
      const float s = 1.0f / t;
      const float gws = go * w * s;
      out[p * h + j] = f32ToBf16(act * w);
      d[j] = cx ? 0.0f : gws * yv * std::fma(xv, 1.0f - s, 1.0f);
      d[h + j] = cu || cl ? 0.0f : gws * xv;
      dot += (double)(go * act);
    }
    rowDot[p] = (float)dot;
    for (int64_t j = 0; j < 2 * h; ++j)
      xGrad[p * 2 * h + j] = f32ToBf16(d[j]);
    for (int64_t q = 0; q < 2 * hg; ++q) {
      float amax = 0.0f;
      for (int64_t j = q * g; j < (q + 1) * g; ++j)
        amax = std::fmax(amax, std::fabs(d[j]));
      Scale sc = scaleRule(amax, Format::E4M3, c.roundSf);
      xGradSf[p * 2 * hg + q] = sc.sf;
      for (int64_t j = q * g; j < (q + 1) * g; ++j)
        xGradFp8[p * 2 * h + j] = encodeE4M3(d[j] * sc.inv);
    }
  }
}

} // namespace tk::kernels::quant
