//===- cast_back_config.cpp - the config's key and declared schedule --------===//
//
// Apart from the DSL program (cast_back.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/quant/cast_back.h"
#include <numeric>

namespace tk::kernels::quant {

using namespace tk::dsl;

int64_t CastBackConfig::tileM() const { return blockK == 1 && blockM > 1 ? std::gcd<int64_t>(blockM, 32) : 1; }

int64_t CastBackConfig::tileK() const {
  const int64_t maxTile = 8192;
  if (tileM() > 1)
    return maxTile / tileM();
  if (hidden <= maxTile)
    return blockK >= hidden ? hidden : alignUp(hidden, blockK);
  if (blockK <= maxTile)
    return blockK * (maxTile / blockK);
  return std::gcd(blockK, maxTile);
}

std::string CastBackConfig::key() const {
  return "cast_back:K=" + std::to_string(hidden) + ",b=" + std::to_string(blockM) + ",g=" + std::to_string(blockK) +
         ",out=" + name(out) + ",xalign=" + std::to_string(xAlignBytes) + ",outalign=" + std::to_string(outAlignBytes) +
         (packedSf ? ",ue8m0" : "") +
         (in == Format::E2M1   ? ",in=e2m1"
          : in == Format::E5M6 ? ",in=e5m6"
                               : "");
}

} // namespace tk::kernels::quant
