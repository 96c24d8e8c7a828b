//===- expand_check.h - run expand_to_fused[_with_sf], check, time --------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/moe_inputs.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct ExpandCase {
  enum class Sf { None, RowF32, ColF32, ColPacked }; ///< expand_to_fused, or _with_sf's scale-factor layouts
  int64_t tokens, topk, experts, ranks,
      hidden; ///< moe.md 4.1's routing: K of `experts` over `ranks`
  tk_dtype dtype = TK_BF16;
  Sf sf = Sf::None;
  int32_t perChannels = 128; ///< C, channels per scale factor
  bool edges = false;        ///< some slots name positions past M or other negatives
                             ///< (must write nothing)
  uint64_t seed = 1;
};

std::string describe(const ExpandCase &c);

/// Random rows (bit patterns, NaNs included) expanded by the canonical
/// mapping of moe.md 4.1's ids (alignment 16) through tk_expand_to_fused or
/// tk_expand_to_fused_with_sf on the GPU of `gpu` (timed when `time`) or the
/// CPU path, every byte of the poisoned outputs (the column-major storage's
/// unused columns included) compared with the reference; bytes = the spec's.
CheckResult checkExpand(GpuSession *gpu, tk_context ctx, const ExpandCase &c, bool time);

} // namespace tk::checks
