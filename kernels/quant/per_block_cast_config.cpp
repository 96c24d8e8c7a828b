//===- per_block_cast_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (per_block_cast.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/quant/per_block_cast.h"
#include <optional>

namespace tk::kernels::quant {

using namespace tk::dsl;

std::string PerBlockCastConfig::kernelName() const {
  switch (mode) {
  case PerBlockMode::Cast:
    return "per_block_cast";
  case PerBlockMode::SfOnly:
    return "per_block_cast_with_sf_only";
  case PerBlockMode::PrecomputedSf:
    return "per_block_cast_with_precomputed_sf";
  }
  return "?";
}

std::string PerBlockCastConfig::key() const {
  return kernelName() + ":K=" + std::to_string(hidden) + ",b=" + std::to_string(blockM) +
         ",g=" + std::to_string(blockK) + ",in=" + name(in) + ",round=" + std::to_string(roundSf) +
         ",xalign=" + std::to_string(xAlignBytes) + ",outalign=" + std::to_string(outAlignBytes) +
         (out == Format::E2M1 ? ",out=e2m1" : "") + (packedSf ? ",ue8m0" : "");
}

} // namespace tk::kernels::quant
