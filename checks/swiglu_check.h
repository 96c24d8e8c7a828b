//===- swiglu_check.h - run swiglu_forward_and_per_token_cast, check, time ===//
#pragma once

#include "checks/expf_oracle.h"
#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <optional>
#include <vector>

namespace tk::checks {

/// A MoE routing (quant.md 5.3, simplified): `tokens` tokens each pick `topk`
/// distinct experts of `totalExperts`; the first `localExperts` are this
/// rank's. Rows are grouped by local expert, each group padded with -1 rows
/// to a multiple of `alignment`.
struct MoeRouting {
  int64_t tokens = 0, topk = 0, rows = 0;
  std::vector<int32_t> posToTokenTopk; ///< t * topk + slot, or -1 (padding)
  std::vector<int32_t> posToExpert;    ///< local expert, or -1 (padding)
  std::vector<int32_t> rowToken;       ///< source token of each row, or -1
};
MoeRouting makeMoeRouting(int64_t tokens, int64_t topk, int64_t totalExperts, int64_t localExperts,
                          int64_t alignment, uint64_t seed);

/// The routing shapes of quant.md 5.3's MoE grid, cycled by case number i:
/// top-k {2, 6, 8, 9} and (experts, ranks) {(72, 8), (256, 8), (256, 64)},
/// i.e. 9, 32 or 4 local experts.
struct MoeShape {
  int64_t topk, totalExperts, localExperts;
};
MoeShape specMoeShape(int i);

struct SwigluCastCase {
  int64_t h, group;
  tk_dtype in = TK_BF16; ///< TK_BF16 or TK_F32
  uint32_t flags = 0;
  bool weights = false; ///< pass pos_to_token_topk and topk_weights
  bool experts = false; ///< pass pos_to_expert
  std::optional<float> clamp;
  bool count = false; ///< pass clamped_count (needs clamp)
  std::optional<float> sfClampMin;
  /// The routing: `plainRows` > 0 means no MoE mapping (rows = plainRows,
  /// pos_to_token_topk the identity into (rows, 1) weights).
  int64_t tokens = 4001, topk = 2, totalExperts = 72, localExperts = 9, alignment = 16;
  int64_t plainRows = 0;
  uint64_t seed = 1;
};

std::string describe(const SwigluCastCase &c);

/// quant.md 4.16's test grid over hidden sizes `hs`: g in {128, H} x flags
/// {(round), (col, round, packed)} (not (col, g = H)) x routing {none,
/// weights + experts} x `clamps` (counted when set). `packedWithWeights`
/// false leaves out (packed, weights) as the spec does. Routing and seeds are
/// the caller's.
/// quant.md 4.16's GPU grid as swigluCastGrid over the spec's H list with
/// clamps {none, 10, 0.5}, the spec's MoE routings cycled (swiglu_cases.cpp).
std::vector<SwigluCastCase> swigluCastGpuGrid();

std::vector<SwigluCastCase> swigluCastGrid(const std::vector<int64_t> &hs,
                                           const std::vector<std::optional<float>> &clamps, bool packedWithWeights);

/// Random bf16/fp32 normal tokens expanded along the routing (padding rows
/// hold a copy of some token, so that skipping them shows), random weights, through the operator; out and out_sf of the rows
/// with an expert (all rows without a mapping) compared bit for bit with the
/// reference, and the clamp counts exactly. On the GPU of `gpu` with
/// `deviceExp` as the reference's expf (timed when `time`), or on the CPU
/// path when `gpu` is null (the C library's expf).
CheckResult checkSwigluPerTokenCast(GpuSession *gpu, tk_context ctx, const SwigluCastCase &c, bool time,
                                    const ExpTable *deviceExp = nullptr);

} // namespace tk::checks
