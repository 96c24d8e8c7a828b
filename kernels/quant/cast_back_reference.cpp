//===- cast_back_reference.cpp - the C++ reference ------------------------===//
#include "kernels/quant/cast_back.h"

#include <cstdint>

namespace tk::kernels::quant {

using namespace tk::dsl;

void castBackReference(const uint8_t *x, int64_t m, int64_t k, int64_t b, int64_t g, const float *sf, int64_t sfStride0,
                       int64_t sfStride1, DType out, void *result, Format in) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) {
      float d = in == Format::E2M1   ? decodeE2M1((uint8_t)(x[i * (k / 2) + j / 2] >> (4 * (j % 2))))
                : in == Format::E5M6 ? decodeE5M6(e5m6CodeAt(x + i * (k / 2 * 3), j))
                                     : decodeE4M3(x[i * k + j]);
      float v = d * sf[(i / b) * sfStride0 + (j / g) * sfStride1];
      if (out == DType::F32)
        static_cast<float *>(result)[i * k + j] = v;
      else
        static_cast<uint16_t *>(result)[i * k + j] = f32ToBf16(v);
    }
}

} // namespace tk::kernels::quant
