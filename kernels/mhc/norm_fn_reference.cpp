//===- norm_fn_reference.cpp - 3.2's math in fp64 --------------------------===//
#include "kernels/mhc/norm_fn.h"
#include "kernels/quant/formats.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace tk::kernels::mhc {

using quant::bf16ToF32;

namespace {
/// The spec's tf32r: (bits + 0x1000) & ~0x1FFF.
float tf32(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u = (u + 0x1000u) & ~0x1FFFu;
  std::memcpy(&v, &u, 4);
  return v;
}

/// fn w (f32, as the kernel multiplies) rounded to TF32: the MMA's operand.
std::vector<float> operand(const float *fn, const float *w, int64_t mixes, int64_t width) {
  std::vector<float> out(mixes * width);
  for (int64_t j = 0; j < mixes; ++j)
    for (int64_t k = 0; k < width; ++k)
      out[j * width + k] = tf32(w ? fn[j * width + k] * w[k] : fn[j * width + k]);
  return out;
}
} // namespace

void normFnForwardReference(const uint16_t *residual, const float *fn, const float *w, int64_t tokens, int64_t mixes,
                            int64_t width, float eps, double *mix, double *mul, double *ss) {
  const std::vector<float> wt = operand(fn, w, mixes, width);
  for (int64_t t = 0; t < tokens; ++t) {
    double sum = 0;
    for (int64_t k = 0; k < width; ++k) {
      const double x = bf16ToF32(residual[t * width + k]);
      sum += x * x;
    }
    ss[t] = sum;
    const double r = 1.0 / std::sqrt(sum / width + (double)eps);
    for (int64_t j = 0; j < mixes; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < width; ++k)
        acc += (double)bf16ToF32(residual[t * width + k]) * wt[j * width + k];
      mul[t * mixes + j] = acc;
      mix[t * mixes + j] = acc * r;
    }
  }
}

void normFnBackwardReference(const float *gradMix, const uint16_t *residual, const float *fn, const float *w,
                             const float *mul, const float *ss, const uint16_t *acc, int64_t tokens, int64_t mixes,
                             int64_t width, float eps, double *gradResidual, double *gradFn, double *gradW) {
  const std::vector<float> wt = operand(fn, w, mixes, width);
  std::vector<double> dW(mixes * width, 0.0);
  for (int64_t t = 0; t < tokens; ++t) {
    const double s = ss[t], r = 1.0 / std::sqrt(s / width + (double)eps);
    double dr = 0;
    std::vector<float> dmul(mixes);
    for (int64_t j = 0; j < mixes; ++j) {
      dr += (double)gradMix[t * mixes + j] * mul[t * mixes + j];
      dmul[j] = tf32((float)(gradMix[t * mixes + j] * r));
    }
    const double dss = -0.5 * dr * r / (s + (double)eps * width);
    for (int64_t k = 0; k < width; ++k) {
      const double x = bf16ToF32(residual[t * width + k]);
      double g = acc ? (double)bf16ToF32(acc[t * width + k]) : 0.0;
      for (int64_t j = 0; j < mixes; ++j) {
        g += (double)dmul[j] * wt[j * width + k];
        dW[j * width + k] += (double)dmul[j] * x;
      }
      gradResidual[t * width + k] = g + 2 * x * dss;
    }
  }
  for (int64_t j = 0; j < mixes; ++j)
    for (int64_t k = 0; k < width; ++k)
      gradFn[j * width + k] = w ? dW[j * width + k] * w[k] : dW[j * width + k];
  if (w)
    for (int64_t k = 0; k < width; ++k) {
      double sum = 0;
      for (int64_t j = 0; j < mixes; ++j)
        sum += dW[j * width + k] * fn[j * width + k];
      gradW[k] = sum;
    }
}

} // namespace tk::kernels::mhc
