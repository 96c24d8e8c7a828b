//===- gate_forward_reference.cpp - the C++ reference ---------------------===//
#include "kernels/engram/gate_forward.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tk::kernels::engram {

using namespace tk::dsl;

void gateForwardReference(const float *x, const float *k, const float *v, const float *wf, int64_t tokens,
                          int64_t streams, int64_t hidden, double eps, double clamp, double *out, double *dot,
                          double *gate, double *rstdX, double *rstdK, double *absSum) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t s = 0; s < streams; ++s) {
      const float *xr = x + (t * streams + s) * hidden, *kr = k + (t * streams + s) * hidden, *w = wf + s * hidden;
      double sx = 0, sk = 0, raw = 0, mag = 0;
      for (int64_t d = 0; d < hidden; ++d) {
        sx += double(xr[d]) * xr[d], sk += double(kr[d]) * kr[d];
        raw += double(xr[d]) * w[d] * kr[d], mag += std::fabs(double(xr[d]) * w[d] * kr[d]);
      }
      const double rx = 1.0 / std::sqrt(sx / hidden + eps), rk = 1.0 / std::sqrt(sk / hidden + eps);
      const double score = raw * rx * rk / std::sqrt(double(hidden));
      const double q = std::copysign(std::sqrt(std::max(std::fabs(score), clamp)), score);
      const double g = 1.0 / (1.0 + std::exp(-q));
      const int64_t i = t * streams + s;
      dot[i] = raw, gate[i] = g, rstdX[i] = rx, rstdK[i] = rk, absSum[i] = mag;
      for (int64_t d = 0; out && d < hidden; ++d)
        out[i * hidden + d] = xr[d] + g * v[t * hidden + d];
    }
}

} // namespace tk::kernels::engram
