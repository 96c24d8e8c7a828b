//===- per_channel_cast_reference.cpp - the C++ reference -----------------===//
#include "kernels/quant/per_channel_cast.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace tk::kernels::quant {

using namespace tk::dsl;

void perChannelCastReference(const void *x, DType in, int64_t m, int64_t k, int64_t b, bool roundSf, bool transposed,
                             uint8_t *out, float *sf, const float *xs) {
  auto value = [&](int64_t i, int64_t j) {
    if (in == DType::F8E4M3)
      return decodeE4M3(static_cast<const uint8_t *>(x)[i * k + j]) * xs[i * (k / 128) + j / 128];
    return in == DType::BF16 ? bf16ToF32(static_cast<const uint16_t *>(x)[i * k + j])
                             : static_cast<const float *>(x)[i * k + j];
  };
  for (int64_t p = 0; p < m / b; ++p)
    for (int64_t j = 0; j < k; ++j) {
      float amax = 0.0f;
      for (int64_t i = p * b; i < (p + 1) * b; ++i)
        amax = std::fmax(amax, std::fabs(value(i, j)));
      Scale s = scaleRule(amax, Format::E4M3, roundSf);
      sf[p * k + j] = s.sf;
      for (int64_t i = p * b; i < (p + 1) * b; ++i)
        (transposed ? out[j * m + i] : out[i * k + j]) = encodeE4M3(value(i, j) * s.inv);
    }
}

void perChannelCastGatherReference(const void *x, DType in, int64_t k, const int32_t *posToToken, int64_t nOut,
                                   int64_t b, bool roundSf, uint8_t *out, float *sf, const float *xs) {
  const int64_t elt = in == DType::F8E4M3 ? 1 : in == DType::BF16 ? 2 : 4, full = ceilDiv(nOut, b) * b;
  std::vector<uint8_t> v(full * k * elt, 0); // padded to whole blocks with zero rows (absmax unchanged)
  std::vector<float> vs(in == DType::F8E4M3 ? full * (k / 128) : 0, 0.0f);
  for (int64_t p = 0; p < nOut; ++p) {
    const int32_t r = posToToken[p];
    if (r < 0)
      continue;
    std::memcpy(&v[p * k * elt], static_cast<const uint8_t *>(x) + r * k * elt, k * elt);
    if (!vs.empty())
      std::memcpy(&vs[p * (k / 128)], xs + r * (k / 128), (k / 128) * 4);
  }
  std::vector<uint8_t> paddedOut(full * k);
  perChannelCastReference(v.data(), in, full, k, b, roundSf, false, paddedOut.data(), sf, vs.data());
  std::memcpy(out, paddedOut.data(), nOut * k);
}

void swigluActivationReference(const uint16_t *x, int64_t k, std::optional<float> clamp, const ExpFunction &expf,
                               int64_t rowBegin, int64_t rowEnd, uint16_t *act) {
  for (int64_t i = rowBegin; i < rowEnd; ++i)
    for (int64_t j = 0; j < k; ++j)
      act[i * k + j] =
          f32ToBf16(swigluForwardReference(bf16ToF32(x[i * 2 * k + j]), bf16ToF32(x[i * 2 * k + k + j]), clamp, expf));
}

void swigluPerChannelCastReference(const uint16_t *x, int64_t m, int64_t k, int64_t b, bool roundSf, bool transposed,
                                   std::optional<float> clamp, const ExpFunction &expf, uint8_t *out, float *sf) {
  std::vector<uint16_t> act(m * k); // the bf16 activation, then the plain per-channel cast
  swigluActivationReference(x, k, clamp, expf, 0, m, act.data());
  perChannelCastReference(act.data(), DType::BF16, m, k, b, roundSf, transposed, out, sf);
}

} // namespace tk::kernels::quant
