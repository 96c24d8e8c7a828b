// kernels/common/division_magic.h: a high multiply and a shift give n / d exactly for every dividend below
// 2^(bits - 1), at the divisors' and dividends' extremes and at random.
#include "kernels/common/division_magic.h"
#include "kernels/moe/mask_indices_by_tp.h"

#include <gtest/gtest.h>
#include <random>
#include <vector>

using tk::kernels::divideByMagic;
using tk::kernels::DivisionMagic;
using tk::kernels::divisionMagic;

namespace {

void expectExact(uint64_t d, int bits, const std::vector<uint64_t> &dividends) {
  const DivisionMagic m = divisionMagic(d, bits);
  if (bits == 32)
    EXPECT_LT(m.magic, uint64_t(1) << 32) << d;
  const uint64_t top = (uint64_t(1) << (bits - 1)) - 1;
  for (uint64_t n : dividends)
    if (n <= top) // the promise's range (2 d and the like pass it for the largest divisors)
      ASSERT_EQ(divideByMagic(n, m, bits), n / d) << n << " / " << d << " in " << bits << " bits";
}

TEST(DivisionMagic, QuotientsAreExact) {
  for (int bits : {32, 64}) {
    const uint64_t top = (uint64_t(1) << (bits - 1)) - 1; // the largest dividend
    std::vector<uint64_t> divisors = {1, 2, 3, 5, 6, 7, 9, 72, 96, 255, 256, 257, 641, 6700417, top / 2, top - 1, top};
    for (uint64_t p = 1; p < uint64_t(1) << (bits - 1); p <<= 1)
      for (uint64_t d : {p - 1, p, p + 1})
        if (d >= 1 && d <= top)
          divisors.push_back(d);
    for (uint64_t d = 1; d < 2000; ++d)
      divisors.push_back(d);
    std::mt19937_64 rng(7);
    for (uint64_t d : divisors) {
      std::vector<uint64_t> n = {0,     1,   d - 1,   d,       d + 1,       2 * d - 1,
                                 2 * d, top, top - 1, top - d, top / d * d, top / d * d - 1};
      for (int i = 0; i < 64; ++i)
        n.push_back(rng() & top);
      for (int i = 0; i < 16; ++i) { // around multiples of d
        const uint64_t q = (rng() & top) / d;
        for (uint64_t v : {q * d, q * d - 1, q * d + d - 1})
          if (v <= top)
            n.push_back(v);
      }
      expectExact(d, bits, n);
    }
    for (int i = 0; i < 20000; ++i) {
      const uint64_t d = 1 + (rng() & top) % top, n = rng() & top;
      expectExact(d, bits, {n});
    }
  }
}

TEST(DivisionMagic, OneIsTheDividendAndZeroIsRefused) {
  EXPECT_EQ(divisionMagic(1, 64).magic, 0u);
  EXPECT_EQ(divideByMagic(12345, divisionMagic(1, 32), 32), 12345u);
  EXPECT_THROW(divisionMagic(0, 64), std::invalid_argument);
  EXPECT_THROW(divisionMagic(uint64_t(1) << 31, 32), std::invalid_argument);
  EXPECT_THROW(divisionMagic(3, 16), std::invalid_argument);
}

} // namespace

// mask_indices_by_tp takes the quotients by multiply and shift unless its schedule says magic=0: the heuristic's
// key names no field and the call passes the four extra scalars; magic=0 is a key of its own, with three.
TEST(DivisionMagic, MaskIndicesTakesItUnlessAskedNot) {
  using tk::kernels::moe::MaskIndicesConfig;
  MaskIndicesConfig c;
  EXPECT_TRUE(c.usesMagic());
  EXPECT_EQ(c.key(), "mask_indices_by_tp:dtype=i64");
  EXPECT_EQ(tk::kernels::moe::maskIndicesScalars(c, 32, 4, 1).size(), 7u);
  MaskIndicesConfig off = c;
  ASSERT_EQ(tk::kernels::moe::maskIndicesSchedule().spec().parse("magic=0", off), "");
  EXPECT_FALSE(off.usesMagic());
  EXPECT_EQ(off.key(), "mask_indices_by_tp:dtype=i64|magic=0");
  EXPECT_EQ(tk::kernels::moe::maskIndicesScalars(off, 32, 4, 1).size(), 3u);
}
