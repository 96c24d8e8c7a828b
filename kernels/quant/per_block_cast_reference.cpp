//===- per_block_cast_reference.cpp - the C++ reference -------------------===//
#include "kernels/quant/per_block_cast.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tk::kernels::quant {

using namespace tk::dsl;

namespace {
float valueAt(const void *x, DType in, int64_t at) {
  return in == DType::BF16 ? bf16ToF32(static_cast<const uint16_t *>(x)[at]) : static_cast<const float *>(x)[at];
}
} // namespace

/// Writes one encoded element (e4m3 byte, or an e2m1 nibble of a row of K / 2 bytes).
static void put(uint8_t *out, int64_t k, int64_t i, int64_t j, float v, Format fmt) {
  if (fmt == Format::E4M3) {
    out[i * k + j] = encodeE4M3(v);
    return;
  }
  uint8_t &byte = out[i * (k / 2) + j / 2];
  byte = j % 2 ? (uint8_t)((byte & 0x0F) | (encodeE2M1(v) << 4)) : (uint8_t)((byte & 0xF0) | encodeE2M1(v));
}

void perBlockCastReference(const void *x, DType in, int64_t m, int64_t k, int64_t b, int64_t g, bool roundSf,
                           uint8_t *out, float *sf, int64_t sfStride0, int64_t sfStride1, Format fmt) {
  for (int64_t p = 0; p < ceilDiv(m, b); ++p)
    for (int64_t q = 0; q < ceilDiv(k, g); ++q) {
      int64_t r0 = p * b, r1 = std::min(m, r0 + b), c0 = q * g, c1 = std::min(k, c0 + g);
      float amax = 0.0f;
      for (int64_t i = r0; i < r1; ++i)
        for (int64_t j = c0; j < c1; ++j)
          amax = std::fmax(amax, std::fabs(valueAt(x, in, i * k + j)));
      Scale s = scaleRule(amax, fmt, roundSf);
      sf[p * sfStride0 + q * sfStride1] = s.sf;
      for (int64_t i = r0; i < r1; ++i)
        for (int64_t j = c0; j < c1; ++j)
          put(out, k, i, j, valueAt(x, in, i * k + j) * s.inv, fmt);
    }
}

void perBlockCastWithSfReference(const void *x, DType in, int64_t m, int64_t k, int64_t b, int64_t g, const float *sf,
                                 int64_t sfStride0, uint8_t *out, Format fmt) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j)
      put(out, k, i, j, valueAt(x, in, i * k + j) * (1.0f / sf[(i / b) * sfStride0 + j / g]), fmt);
}

} // namespace tk::kernels::quant
