//===- mask_indices_check.h - run mask_indices_by_tp, check, time ---------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct MaskIndicesCase {
  int64_t tokens, topk;
  int64_t experts, epRanks; ///< n and num_ep_ranks (R = n / num_ep_ranks)
  int32_t tpRanks, tpRank;
  tk_dtype dtype = TK_I64;
  uint64_t seed = 1;
};

std::string describe(const MaskIndicesCase &c);

/// Ids drawn from [-1, n) (global ids, so every TP rank keeps some; a few
/// past n and below -1) through tk_mask_indices_by_tp on the GPU of `gpu`
/// (timed when `time`) or the CPU path, compared exactly with the reference;
/// bytes = ids in + out (moe.md 2.5).
CheckResult checkMaskIndices(GpuSession *gpu, tk_context ctx, const MaskIndicesCase &c, bool time);

} // namespace tk::checks
