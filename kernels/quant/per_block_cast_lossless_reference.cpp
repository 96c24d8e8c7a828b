//===- per_block_cast_lossless_reference.cpp - the C++ reference ----------===//
#include "kernels/quant/per_block_cast_lossless.h"

#include <algorithm>
#include <cstdint>

namespace tk::kernels::quant {

using namespace tk::dsl;

bool perBlockCastLosslessReference(const uint8_t *x, int64_t m, int64_t k, const float *sfIn, int64_t in0, int64_t in1,
                                   int64_t bIn, int64_t gIn, int64_t bOut, int64_t gOut, uint8_t *out, float *sfOut,
                                   int64_t out0, int64_t out1) {
  auto exponent = [](float s) { return (int)((bits(s) >> 23) & 0xFF); };
  for (int64_t p = 0; p < ceilDiv(m, bOut); ++p)
    for (int64_t q = 0; q < ceilDiv(k, gOut); ++q) {
      // Input blocks of this output block whose first row and column are in bounds.
      const int64_t i0 = p * bOut / bIn, i1 = std::min(ceilDiv(m, bIn), (p + 1) * bOut / bIn);
      const int64_t j0 = q * gOut / gIn, j1 = std::min(ceilDiv(k, gIn), (q + 1) * gOut / gIn);
      int eMax = 0;
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) {
          const uint32_t b = bits(sfIn[i * in0 + j * in1]);
          if ((b & 0x7FFFFF) || exponent(sfIn[i * in0 + j * in1]) == 255 || (b >> 31 && (b & 0x7FFFFFFF)))
            return false; // not a power of two (or 0)
          eMax = std::max(eMax, exponent(sfIn[i * in0 + j * in1]));
        }
      const int eOut = eMax >= 6 ? eMax - 6 : 0;
      sfOut[p * out0 + q * out1] = fromBits((uint32_t)eOut << 23);
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) {
          const int eIn = exponent(sfIn[i * in0 + j * in1]);
          if (eIn != 0 && eIn + 5 < eOut)
            return false;
          const float mult = eIn == 0 ? 0.0f : fromBits((uint32_t)(eIn - eOut + 127) << 23);
          for (int64_t r = i * bIn; r < std::min(m, (i + 1) * bIn); ++r)
            for (int64_t c = j * gIn; c < std::min(k, (j + 1) * gIn); ++c)
              out[r * k + c] = encodeE4M3(decodeE2M1((uint8_t)(x[r * (k / 2) + c / 2] >> (4 * (c % 2)))) * mult);
        }
    }
  return true;
}

} // namespace tk::kernels::quant
