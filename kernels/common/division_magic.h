//===- division_magic.h - division by a divisor known at launch -----------===//
//
// A kernel that divides by a value fixed for the call (a rank count, experts
// per rank) pays for a hardware division a subroutine of some tens of
// instructions per quotient (64-bit: about a hundred). With a multiplier and
// a shift the host computes once per call, each quotient is one high
// multiply and one shift (Granlund and Montgomery's round-up method):
//   n / d == mulhiu(n, magic) >> shift   for every 0 <= n < 2^(bits - 1),
// bits the type's width (32 or 64). d = 1 has no such multiplier in `bits`
// bits: magic 0 stands for it, and the kernel takes n itself.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tk::kernels {

struct DivisionMagic {
  uint64_t magic = 0; ///< 0: d = 1
  int64_t shift = 0;
};

/// The multiplier and shift of d for dividends in [0, 2^(bits - 1)): with l
/// = ceil(log2 d), magic = ceil(2^(bits - 1 + l) / d), below 2^bits, and
/// shift = l - 1; m d - 2^(bits - 1 + l) < d <= 2^l keeps every quotient exact.
inline DivisionMagic divisionMagic(uint64_t d, int bits) {
  if ((bits != 32 && bits != 64) || d == 0 || d >= (uint64_t(1) << (bits - 1)))
    throw std::invalid_argument("divisionMagic: divisor " + std::to_string(d) + " outside [1, 2^" +
                                std::to_string(bits - 1) + ")");
  if (d == 1)
    return {0, 0};
  int l = 0;
  while ((uint64_t(1) << l) < d)
    ++l;
  const unsigned __int128 power = (unsigned __int128)1 << (bits - 1 + l);
  return {uint64_t((power + d - 1) / d), l - 1};
}

/// The quotient divisionMagic promises, on the host (tests).
inline uint64_t divideByMagic(uint64_t n, const DivisionMagic &m, int bits) {
  if (m.magic == 0)
    return n;
  const unsigned __int128 product = (unsigned __int128)n * m.magic;
  return uint64_t(product >> bits) >> m.shift;
}

} // namespace tk::kernels
