//===- bf16.h - bf16 bits and values for the checks' host data -------------===//
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tk::checks {

/// The bf16 nearest to `f` (ties to even; a NaN as the quiet NaN).
inline uint16_t bf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f))
    return 0x7FC0;
  return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

/// The value of bf16 bits, exactly.
inline float bf16Value(uint16_t b) {
  const uint32_t u = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

} // namespace tk::checks
