//===- gate_backward_reference.cpp - the C++ reference --------------------===//
#include "kernels/engram/gate_backward.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tk::kernels::engram {

using namespace tk::dsl;

void gateBackwardReference(const float *dout, const float *x, const float *k, const float *v, const float *wf,
                           const float *dot, const float *gate, const float *rstdX, const float *rstdK, int64_t tokens,
                           int64_t streams, int64_t hidden, int64_t blocks, float clamp, double *gradX, double *gradK,
                           double *gradV, double *rho, double *gwPartial) {
  const float invSqrtH = (float)(1.0 / std::sqrt((double)hidden));
  const int64_t perBlock = blocks ? (tokens + blocks - 1) / blocks : 0;
  std::fill(gwPartial, gwPartial + blocks * streams * hidden, 0.0);
  std::fill(gradV, gradV + tokens * hidden, 0.0);
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t s = 0; s < streams; ++s) {
      const int64_t i = t * streams + s, at = i * hidden;
      double dg = 0;
      for (int64_t d = 0; d < hidden; ++d)
        dg += double(dout[at + d]) * v[t * hidden + d];
      const double raw = dot[i], g = gate[i], rx = rstdX[i], rk = rstdK[i];
      const bool clamped = std::fabs(dot[i]) * invSqrtH * rstdX[i] * rstdK[i] < clamp; // f32, as the kernel
      const double r =
          clamped ? 0.0 : dg * g * (1 - g) * 0.5 * std::sqrt(rx * rk / std::sqrt(double(hidden)) / std::fabs(raw));
      rho[i] = r;
      const double ax = raw * rx * rx / hidden, ak = raw * rk * rk / hidden;
      double *part = gwPartial + ((t / perBlock) * streams + s) * hidden;
      for (int64_t d = 0; d < hidden; ++d) {
        const double xv = x[at + d], kv = k[at + d], w = wf[s * hidden + d];
        gradX[at + d] = dout[at + d] + r * (kv * w - xv * ax);
        gradK[at + d] = r * (xv * w - kv * ak);
        gradV[t * hidden + d] += double(dout[at + d]) * g;
        part[d] += r * xv * kv;
      }
    }
}

} // namespace tk::kernels::engram
