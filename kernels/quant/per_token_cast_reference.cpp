//===- per_token_cast_reference.cpp - the C++ reference -------------------===//
#include "kernels/quant/per_token_cast.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tk::kernels::quant {

using namespace tk::dsl;

void perTokenCastReference(const void *x, DType in, int64_t m, int64_t k, int64_t xRowStride, int64_t group,
                           bool roundSf, uint8_t *out, float *sf, int64_t sfStride0, int64_t sfStride1, Format fmt) {
  std::vector<uint8_t> codes(fmt == Format::E2M1 ? k : 0);
  std::vector<uint16_t> codes12(fmt == Format::E5M6 ? k : 0);
  auto value = [&](int64_t i, int64_t j) -> float {
    if (in == DType::BF16)
      return bf16ToF32(static_cast<const uint16_t *>(x)[i * xRowStride + j]);
    return static_cast<const float *>(x)[i * xRowStride + j];
  };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t gi = 0; gi < ceilDiv(k, group); ++gi) {
      int64_t begin = gi * group, end = std::min(k, begin + group);
      float amax = 0.0f;
      for (int64_t j = begin; j < end; ++j)
        amax = std::fmax(amax, std::fabs(value(i, j)));
      Scale s = scaleRule(amax, fmt, roundSf);
      sf[i * sfStride0 + gi * sfStride1] = s.sf;
      for (int64_t j = begin; j < end; ++j) {
        float v = value(i, j) * s.inv;
        if (fmt == Format::E2M1)
          codes[j] = encodeE2M1(v);
        else if (fmt == Format::E5M6)
          codes12[j] = encodeE5M6(v);
        else
          out[i * k + j] = encodeE4M3(v);
      }
      if (fmt == Format::E2M1 && gi == ceilDiv(k, group) - 1)
        packE2M1(codes.data(), k, out + i * (k / 2));
      if (fmt == Format::E5M6 && gi == ceilDiv(k, group) - 1)
        packE5M6(codes12.data(), k, out + i * (k / 2 * 3));
    }
}

void perTokenRequantReference(const uint8_t *x, int64_t m, int64_t k, int64_t xRowStride, const float *sfIn,
                              int64_t sfInStride0, int64_t sfInStride1, int64_t bIn, int64_t gIn, int64_t group,
                              bool roundSf, uint8_t *out, float *sf, int64_t sfStride0, int64_t sfStride1, Format fmt,
                              Format inFmt) {
  std::vector<float> v(m * k);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) {
      const uint8_t *row = x + i * xRowStride;
      float d = inFmt == Format::E2M1 ? decodeE2M1((uint8_t)(row[j / 2] >> (4 * (j % 2)))) : decodeE4M3(row[j]);
      v[i * k + j] = d * sfIn[(i / bIn) * sfInStride0 + (j / gIn) * sfInStride1];
    }
  perTokenCastReference(v.data(), dsl::DType::F32, m, k, k, group, roundSf, out, sf, sfStride0, sfStride1, fmt);
}

void perTokenCastWithSfReference(const void *x, dsl::DType in, int64_t m, int64_t k, int64_t xRowStride, int64_t group,
                                 const float *sf, int64_t sfStride0, uint8_t *out, Format fmt) {
  std::vector<uint8_t> codes(k);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      float v = in == dsl::DType::BF16 ? bf16ToF32(static_cast<const uint16_t *>(x)[i * xRowStride + j])
                                       : static_cast<const float *>(x)[i * xRowStride + j];
      float scaled = v * (1.0f / sf[i * sfStride0 + j / group]);
      if (fmt == Format::E2M1)
        codes[j] = encodeE2M1(scaled);
      else
        out[i * k + j] = encodeE4M3(scaled);
    }
    if (fmt == Format::E2M1)
      packE2M1(codes.data(), k, out + i * (k / 2));
  }
}

} // namespace tk::kernels::quant
