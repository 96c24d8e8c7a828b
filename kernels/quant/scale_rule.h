//===- scale_rule.h - the scale rule as DSL code (spec quant.md 3.1) ------===//
#pragma once

#include "kernels/quant/formats.h"
#include "tk/dsl/Values.h"

#include <utility>

namespace tk::kernels::quant {

/// (SF, INV) tiles for a tile of group absmaxes, elementwise, with the same
/// constants and operation order as scaleRule() in formats.h (`clampBits`: a
/// CLAMP other than the format's, 0 for the default).
std::pair<dsl::Tile, dsl::Tile> scaleRule(const dsl::Tile &amax, Format format, bool roundSf,
                                          uint32_t clampBits = 0);

/// UE8M0 bytes (i8) of power-of-two scale factors: their biased exponents.
dsl::Tile ue8m0Bytes(const dsl::Tile &scales);
/// fp32 scale factors of UE8M0 bytes: the float with bits byte << 23.
dsl::Tile ue8m0ToF32(const dsl::Tile &bytes);

} // namespace tk::kernels::quant
