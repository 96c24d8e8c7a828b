// The shared quantization library: e4m3 encoding, the scale rule, bf16.
#include "kernels/quant/formats.h"

#include <gtest/gtest.h>
#include <cmath>
#include <cstring>
#include <random>

using namespace tk::kernels::quant;

namespace {

// Nearest e4m3 value by exhaustive search; ties to the even code.
uint8_t bruteForceE4M3(float v) {
  if (std::isnan(v))
    return 0x7F;
  float a = std::fabs(v);
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  if (a > 448.0f)
    return sign | 0x7E;
  uint8_t best = 0;
  double bestErr = 1e30;
  for (int c = 0; c <= 0x7E; ++c) {
    double err = std::fabs((double)decodeE4M3((uint8_t)c) - a);
    if (err < bestErr || (err == bestErr && (c & 1) == 0 && (best & 1))) {
      best = (uint8_t)c;
      bestErr = err;
    }
  }
  return sign | best;
}

TEST(E4M3, DecodeEncodeRoundTripsEveryCode) {
  for (int c = 0; c < 256; ++c) {
    if ((c & 0x7F) == 0x7F)
      continue;
    EXPECT_EQ(encodeE4M3(decodeE4M3((uint8_t)c)), c) << c;
  }
}

TEST(E4M3, MatchesNearestEvenOnRandomAndBoundaryValues) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> expo(-12.0f, 9.5f);
  for (int i = 0; i < 200000; ++i) {
    float v = std::ldexp(1.0f, 0) * std::exp2(expo(rng)) * (i & 1 ? -1.0f : 1.0f);
    ASSERT_EQ(encodeE4M3(v), bruteForceE4M3(v)) << v;
  }
  // Midpoints between neighbours are ties: they go to the even code.
  for (int c = 0; c < 0x7E; ++c) {
    float mid = (decodeE4M3((uint8_t)c) + decodeE4M3((uint8_t)(c + 1))) / 2;
    EXPECT_EQ(encodeE4M3(mid), bruteForceE4M3(mid)) << mid;
  }
  // The spec's verified device results.
  EXPECT_EQ(encodeE4M3(448.0f), 0x7E);
  EXPECT_EQ(encodeE4M3(464.0f), 0x7E);
  EXPECT_EQ(encodeE4M3(1e6f), 0x7E);
  EXPECT_EQ(encodeE4M3(INFINITY), 0x7E);
  EXPECT_EQ(encodeE4M3(-INFINITY), 0xFE);
  EXPECT_EQ(encodeE4M3(std::ldexp(1.0f, -10)), 0x00);
  EXPECT_EQ(encodeE4M3(1.5f * std::ldexp(1.0f, -10)), 0x01);
  EXPECT_EQ(encodeE4M3(-0.0f), 0x80);
  EXPECT_EQ(encodeE4M3(NAN), 0x7F);
}

TEST(ScaleRule, MatchesTheOracleForms) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> expo(-30.0f, 30.0f);
  for (int i = 0; i < 100000; ++i) {
    float a = std::exp2(expo(rng));
    Scale s = scaleRule(a, Format::E4M3, false);
    float clamped = std::fmax(a, 1e-4f);
    EXPECT_EQ(bits(s.sf), bits(clamped / 448.0f));
    EXPECT_EQ(bits(s.inv), bits(448.0f / clamped));
    Scale r = scaleRule(a, Format::E4M3, true);
    uint32_t u = bits(clamped / 448.0f);
    EXPECT_EQ(bits(r.sf), (u + 0x7FFFFFu) & 0x7F800000u); // spec 3.1 oracle form
    EXPECT_EQ(bits(r.inv), bits(1.0f / r.sf));
    EXPECT_EQ(r.ue8m0, bits(r.sf) >> 23);
  }
  // An all-zero group: SF = CLAMP / FMAX, or 2^-22 rounded.
  EXPECT_EQ(scaleRule(0.0f, Format::E4M3, true).sf, std::ldexp(1.0f, -22));
  EXPECT_EQ(bits(scaleRule(0.0f, Format::E2M1, true).sf), bits(std::ldexp(1.0f, -126)));
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(f32ToBf16(1.0f), 0x3F80);
  EXPECT_EQ(f32ToBf16(fromBits(0x3F808000)), 0x3F80); // tie -> even
  EXPECT_EQ(f32ToBf16(fromBits(0x3F818000)), 0x3F82); // tie -> even (up)
  EXPECT_EQ(f32ToBf16(fromBits(0x3F808001)), 0x3F81);
  EXPECT_EQ(bf16ToF32(0xC000), -2.0f);
}

} // namespace

namespace {

/// The value of fp16 bits `h`: the compiler's _Float16 where it has one
/// (GCC; clang 14 has none on x86), else fp16's definition through ldexp.
float fp16Value(uint16_t h) {
#ifdef __FLT16_MANT_DIG__
  _Float16 f;
  std::memcpy(&f, &h, 2);
  return (float)f;
#else
  const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  const float v = e ? std::ldexp(1.0f + m / 1024.0f, e - 15) : std::ldexp(m / 1024.0f, -14);
  return h >> 15 ? -v : v;
#endif
}

// E5M6 codes are the top 12 bits of fp16 values: every code that is not
// Inf/NaN decodes to the value of that fp16 (an independent oracle), and
// re-encodes to itself.
TEST(E5M6, DecodeMatchesFp16AndReencodes) {
  for (uint32_t c = 0; c < 4096; ++c) {
    if (((c >> 6) & 0x1F) == 31)
      continue; // Inf / NaN
    EXPECT_EQ(bits(decodeE5M6((uint16_t)c)), bits(fp16Value((uint16_t)(c << 4)))) << "code " << c;
    EXPECT_EQ(encodeE5M6(decodeE5M6((uint16_t)c)), c) << "code " << c;
  }
}

// The GPU encode (FloatEncoding.cpp, hardwareE5M6Code) takes each pair's
// fp16 bits (step 1, from cvt.rz.f16x2.f32) as one word, value 2p low, and
// rounds with an add that reaches bit 31 exactly when (c & 1) + (bits(v) &
// 0x1FFFF) > 0x10000. Given step 1 (here: fp16's truncation computed by
// exact float arithmetic), that post-processing must equal encodeE5M6 on
// values from 2^-32 to 65024, fp16 subnormals included.
TEST(E5M6, WordLevelRoundingOfTheGpuEncodeMatchesTheSpec) {
  auto rzHalf = [](float v) -> uint32_t { // fp16 bits of v rounded toward zero
    const float a = std::fabs(v);
    uint32_t h;
    if (a >= 0x1p-14f) {
      int e;
      const float f = std::frexp(a, &e);
      h = (uint32_t)(e - 1 + 15) << 10 | (uint32_t)std::floor((f * 2.0f - 1.0f) * 1024.0f);
    } else {
      h = (uint32_t)std::floor(a * 0x1p24f);
    }
    return h | (bits(v) >> 31) << 15;
  };
  auto rounded = [](uint32_t c, float v) {
    const uint32_t sum = (bits(v) & 0x1FFFFu) + (c & 1u) + 0x7FFEFFFFu;
    return (c + (sum >> 31)) & 0xFFFu;
  };
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  int64_t checked = 0;
  for (int i = 0; i < 200000; ++i) {
    const float v0 = std::ldexp(normal(rng), 15 - (int)(rng() % 48)), v1 = std::ldexp(normal(rng), 15 - (int)(rng() % 48));
    if (std::fabs(v0) > 65024.0f || std::fabs(v1) > 65024.0f)
      continue;
    const uint32_t w = rzHalf(v0) | rzHalf(v1) << 16;
    ASSERT_EQ(rounded((w >> 4) & 0xFFFu, v0), encodeE5M6(v0)) << v0;
    ASSERT_EQ(rounded(w >> 20, v1), encodeE5M6(v1)) << v1;
    checked += 2;
  }
  EXPECT_GT(checked, 300000);
}

TEST(E5M6, CodeAtInvertsPack) {
  std::mt19937 rng(7);
  std::vector<uint16_t> codes(64);
  for (uint16_t &c : codes)
    c = (uint16_t)(rng() & 0xFFF);
  std::vector<uint8_t> bytes(96);
  packE5M6(codes.data(), 64, bytes.data());
  for (int64_t j = 0; j < 64; ++j)
    EXPECT_EQ(e5m6CodeAt(bytes.data(), j), codes[j]) << "code " << j;
}

} // namespace
