//===- scale_rule.cpp -----------------------------------------------------===//
#include "kernels/quant/scale_rule.h"

using tk::dsl::DType;
using tk::dsl::Scalar;
using tk::dsl::Tile;

namespace tk::kernels::quant {

std::pair<Tile, Tile> scaleRule(const Tile &amax, Format format, bool roundSf, uint32_t clampBits) {
  FormatLimits l = limits(format);
  const float clamp = fromBits(clampBits ? clampBits : l.clampBits);
  auto clamped = [clamp](const Scalar &a) { return max(a, a.constantF32(clamp)); };
  auto scale = [=](const Scalar &a) { return clamped(a) / a.constantF32(l.fmax); };
  if (!roundSf) {
    Tile sf = dsl::map({amax}, DType::F32, [&](auto &s) { return scale(s[0]); });
    Tile inv = dsl::map({amax}, DType::F32, [&](auto &s) { return s[0].constantF32(l.fmax) / clamped(s[0]); });
    return {sf, inv};
  }
  // e = biased exponent of 2^ceil(log2 s) = ((bits(s) - 1) >> 23) + 1
  auto exponent = [=](const Scalar &a) {
    Scalar u = scale(a).bitsAsI32();
    return ((u - u.constantI32(1)) >> 23) + u.constantI32(1);
  };
  Tile sf = dsl::map({amax}, DType::F32, [&](auto &s) { return (exponent(s[0]) << 23).bitsAsF32(); });
  Tile inv = dsl::map({amax}, DType::F32, [&](auto &s) {
    Scalar e = exponent(s[0]);
    return ((e.constantI32(254) - e) << 23).bitsAsF32();
  });
  return {sf, inv};
}

Tile ue8m0Bytes(const Tile &scales) {
  return dsl::map({scales}, DType::I8, [](auto &s) { return (s[0].bitsAsI32() >> 23).truncToI8(); });
}

Tile ue8m0ToF32(const Tile &bytes) {
  return dsl::map({bytes}, DType::F32, [](auto &s) { return (s[0].zextToI32() << 23).bitsAsF32(); });
}

} // namespace tk::kernels::quant
