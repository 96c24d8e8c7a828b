//===- formats.h - number formats and the scale rule (spec quant.md 2-3) --===//
//
// The one definition of the quantization arithmetic on the host: C++
// references and tests use these functions, and the DSL side (scale_rule.h)
// builds IR from the same constants. Every step is one IEEE fp32 operation in
// the written order (compile with -ffp-contract=off).
//===----------------------------------------------------------------------===//
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tk::kernels::quant {

enum class Format { E4M3, E2M1, E5M6 };

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// FMAX (largest finite value) and CLAMP (smallest absmax used for a scale).
struct FormatLimits {
  float fmax;
  uint32_t clampBits;
};

inline FormatLimits limits(Format f) {
  switch (f) {
  case Format::E4M3: return {448.0f, 0x38D1B717u};   // CLAMP = fp32(1e-4)
  case Format::E2M1: return {6.0f, 0x01C00000u};     // CLAMP = 6 * 2^-126
  case Format::E5M6: return {65024.0f, 0x38D1B717u};
  }
  return {0, 0};
}

/// A group's scale factor SF and the multiplier INV applied before encoding
/// (INV is FMAX/a', not 1/SF, unless round_sf), and SF as a UE8M0 byte.
struct Scale {
  float sf, inv;
  uint8_t ue8m0;
};

/// SFR(a) of spec 3.1 for a group absmax a >= 0. `clampBits` (the bits of
/// CLAMP, e.g. SwiGLU's sf_clamp_min) replaces the format's default when set.
inline Scale scaleRule(float amax, Format f, bool roundSf, uint32_t clampBits = 0) {
  FormatLimits l = limits(f);
  float clamped = std::fmax(amax, fromBits(clampBits ? clampBits : l.clampBits));
  float s = clamped / l.fmax;
  if (!roundSf)
    return {s, l.fmax / clamped, 0};
  uint32_t e = ((bits(s) - 1u) >> 23) + 1u; // biased exponent of 2^ceil(log2 s)
  return {fromBits(e << 23), fromBits((254u - e) << 23), (uint8_t)e};
}

/// fp32 -> e4m3fn: round to nearest even on the e4m3 grid, saturating at
/// +-448 (also for infinities), NaN -> 0x7F, sign of zero kept.
inline uint8_t encodeE4M3(float v) {
  uint32_t u = bits(v);
  uint32_t sign = (u >> 24) & 0x80u;
  uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u)
    return 0x7F;
  if (a > 0x43E00000u) // > 448
    return (uint8_t)(sign | 0x7E);
  uint32_t mag;
  if (a >= 0x3C800000u) { // >= 2^-6: normal
    uint32_t rounded = a + 0x7FFFFu + ((a >> 20) & 1u);
    mag = (rounded >> 20) - 0x3C0u;
  } else { // subnormal: units of 2^-9, rounded by adding 2^14 (ulp 2^-9)
    mag = bits(fromBits(a) + 16384.0f) - 0x46800000u;
  }
  return (uint8_t)(sign | mag);
}

/// fp32 -> E2M1 code (quant.md 2.2): round to nearest even onto
/// {0, 0.5, 1, 1.5, 2, 3, 4, 6}, saturating at 6, sign bit 3 kept for zeros.
inline uint8_t encodeE2M1(float v) {
  uint32_t u = bits(v);
  float a = fromBits(u & 0x7FFFFFFFu);
  uint8_t code = (a > 0.25f) + (a >= 0.75f) + (a > 1.25f) + (a >= 1.75f) + (a > 2.5f) + (a >= 3.5f) + (a > 5.0f);
  return (uint8_t)(code | ((u >> 31) << 3));
}

/// Packs E2M1 codes two per byte, element 2i in the low nibble of byte i.
inline void packE2M1(const uint8_t *codes, int64_t n, uint8_t *bytes) {
  for (int64_t i = 0; i + 1 < n; i += 2)
    bytes[i / 2] = (uint8_t)(codes[i] | (codes[i + 1] << 4));
}

/// fp32 -> 12-bit E5M6 code (quant.md 2.4), written with float arithmetic
/// (the kernels use integer bit manipulation): h = fp16 bits of v rounded
/// toward zero, c = h >> 4, plus one when (c & 1) + (bits(v) & 0x1FFFF) > 0x10000.
inline uint16_t encodeE5M6(float v) {
  float a = std::fabs(v);
  uint32_t h;
  if (a >= 65536.0f) {
    h = 0x7BFF; // RZ saturates (unreachable after scaling)
  } else if (a >= 0x1p-14f) {
    int e;
    float f = std::frexp(a, &e); // a = f * 2^e, f in [0.5, 1)
    uint32_t mant = (uint32_t)std::floor((f * 2.0f - 1.0f) * 1024.0f);
    h = (uint32_t)(e - 1 + 15) << 10 | mant;
  } else {
    h = (uint32_t)std::floor(a * 0x1p24f); // subnormal fp16: units of 2^-24
  }
  h |= (bits(v) >> 31) << 15;
  uint32_t c = h >> 4;
  if ((c & 1) + (bits(v) & 0x1FFFFu) > 0x10000u)
    c += 1;
  return (uint16_t)(c & 0xFFF);
}

/// Packs E5M6 codes 8 per 3 little-endian uint32 words (12 bytes); n % 8 == 0.
inline void packE5M6(const uint16_t *h, int64_t n, uint8_t *bytes) {
  for (int64_t i = 0; i + 8 <= n; i += 8, h += 8, bytes += 12) {
    uint32_t w[3] = {(uint32_t)h[0] << 20 | (uint32_t)h[1] << 8 | (uint32_t)h[2] >> 4,
                     (uint32_t)(h[2] & 0xF) << 28 | (uint32_t)h[3] << 16 | (uint32_t)h[4] << 4 | (uint32_t)h[5] >> 8,
                     (uint32_t)(h[5] & 0xFF) << 24 | (uint32_t)h[6] << 12 | (uint32_t)h[7]};
    for (int k = 0; k < 12; ++k)
      bytes[k] = (uint8_t)(w[k / 4] >> (8 * (k % 4)));
  }
}

/// Code j of a row of packed E5M6 codes (the inverse of packE5M6).
inline uint16_t e5m6CodeAt(const uint8_t *row, int64_t j) {
  const uint8_t *g = row + j / 8 * 12;
  uint32_t w[3];
  for (int k = 0; k < 3; ++k)
    w[k] = (uint32_t)g[4 * k] | (uint32_t)g[4 * k + 1] << 8 | (uint32_t)g[4 * k + 2] << 16 | (uint32_t)g[4 * k + 3] << 24;
  const uint32_t bit = 12 * (uint32_t)(j % 8); // code position from the top of the 96-bit group
  const uint64_t hi = (uint64_t)w[0] << 32 | w[1], lo = (uint64_t)w[1] << 32 | w[2];
  return (uint16_t)(bit < 32 ? (hi >> (52 - bit)) & 0xFFF : (lo >> (84 - bit)) & 0xFFF);
}

/// 12-bit E5M6 code -> f32: the code is the top 12 bits of an fp16 (quant.md 2.4), exactly.
inline float decodeE5M6(uint16_t c) {
  const uint32_t h = (uint32_t)c << 4, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  const float mag = e == 0 ? std::ldexp((float)m, -24) : e == 31 ? (m ? std::nanf("") : INFINITY)
                                                                  : std::ldexp(1.0f + m / 1024.0f, (int)e - 15);
  return (h & 0x8000) ? -mag : mag;
}

/// E2M1 code (low 4 bits) -> f32, by the table of quant.md 2.2.
inline float decodeE2M1(uint8_t c) {
  static const float magnitude[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  float v = magnitude[c & 7];
  return (c & 8) ? -v : v;
}

inline float decodeE4M3(uint8_t c) {
  int sign = c & 0x80 ? -1 : 1;
  int e = (c >> 3) & 0xF, m = c & 7;
  if (e == 15 && m == 7)
    return std::nanf("");
  float mag = e == 0 ? std::ldexp((float)m, -9) : std::ldexp(1.0f + m / 8.0f, e - 7);
  return sign * mag;
}

inline float bf16ToF32(uint16_t h) { return fromBits((uint32_t)h << 16); }

/// fp32 -> bf16, round to nearest even (NaN kept quiet).
inline uint16_t f32ToBf16(float f) {
  uint32_t u = bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return (uint16_t)((u >> 16) | 0x40);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t alignUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }

} // namespace tk::kernels::quant
