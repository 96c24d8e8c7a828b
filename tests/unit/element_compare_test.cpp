// The checks' element comparison: bit for bit, any NaN matching a NaN (the
// GPU's canonical NaN against the host reference's propagated payload).
#include "checks/element_compare.h"

#include <gtest/gtest.h>

using tk::checks::sameOrBothNan;

namespace {

TEST(ElementCompare, Bf16NanPayloadsMatchOtherBitsDoNot) {
  const uint16_t gpuNan = 0x7FFF, hostNan = 0x7FC0, negNan = 0xFFC0, inf = 0x7F80, one = 0x3F80, pz = 0, nz = 0x8000;
  EXPECT_TRUE(sameOrBothNan(TK_BF16, &gpuNan, &hostNan, 2)); // reduce_fused's 251 edge elements on an H100
  EXPECT_TRUE(sameOrBothNan(TK_BF16, &negNan, &hostNan, 2));
  EXPECT_FALSE(sameOrBothNan(TK_BF16, &inf, &hostNan, 2)); // an infinity is not a NaN
  EXPECT_FALSE(sameOrBothNan(TK_BF16, &gpuNan, &one, 2));
  EXPECT_FALSE(sameOrBothNan(TK_BF16, &nz, &pz, 2)); // signed zeros stay distinct
  EXPECT_TRUE(sameOrBothNan(TK_BF16, &inf, &inf, 2));
}

TEST(ElementCompare, F32AndE4m3) {
  const uint32_t gpuNan = 0x7FFFFFFF, hostNan = 0x7FC00000, inf = 0x7F800000, big = 0x7F7FFFFF;
  EXPECT_TRUE(sameOrBothNan(TK_F32, &gpuNan, &hostNan, 4));
  EXPECT_FALSE(sameOrBothNan(TK_F32, &inf, &hostNan, 4));
  EXPECT_FALSE(sameOrBothNan(TK_F32, &big, &inf, 4));
  const uint8_t nan = 0x7F, negNan = 0xFF, max = 0x7E, zero = 0, negZero = 0x80;
  EXPECT_TRUE(sameOrBothNan(TK_F8_E4M3, &negNan, &nan, 1));
  EXPECT_FALSE(sameOrBothNan(TK_F8_E4M3, &max, &nan, 1)); // 448, the largest finite, is not a NaN
  EXPECT_FALSE(sameOrBothNan(TK_F8_E4M3, &negZero, &zero, 1));
}

} // namespace
