//===- fused_mapping_check.h - run get_fused_mapping, check, time ---------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/moe_inputs.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct FusedMappingCase {
  int64_t tokens, topk, experts, ranks; ///< moe.md 4.1's ids: local ids in [0, experts / ranks)
  int64_t alignment = 128;
  /// How the position tables are sized: the exact total (read back through
  /// num_positions), the reference's upper bound (no read-back), or one
  /// position short of the total (the call must fail, writing nothing past M).
  enum class Sizing { Exact, UpperBound, Short } sizing = Sizing::Exact;
  bool edges = false; ///< ids outside [-1, E) too (empty slots)
  uint64_t seed = 1;
};

std::string describe(const FusedMappingCase &c);

/// moe.md 4.1's ids through tk_get_fused_mapping with E = the local experts
/// on the GPU of `gpu` (timed when `time`) or the CPU path: all seven
/// outputs compared bit for bit with the canonical-order reference
/// (kernels/moe/fused_mapping.h), and nothing written past M; bytes =
/// topk_idx read + the seven outputs written (the spec's count).
CheckResult checkFusedMapping(GpuSession *gpu, tk_context ctx, const FusedMappingCase &c, bool time);

} // namespace tk::checks
