//===- normalize_weight_check.h - run normalize_weight, check, time -------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/moe_inputs.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tk::checks {


struct NormalizeWeightCase {
  int64_t tokens, topk;
  bool edges = false; ///< all-zero rows, negative and subnormal weights mixed in (else uniform [0, 1))
  uint64_t seed = 1;
};

std::string describe(const NormalizeWeightCase &c);

/// Weights through tk_normalize_weight on the GPU of `gpu` (timed when
/// `time`) or the CPU path (null), both outputs compared bit for bit with the
/// reference; bytes = weights + denominator + normalized (moe.md 2.4).
CheckResult checkNormalizeWeight(GpuSession *gpu, tk_context ctx, const NormalizeWeightCase &c, bool time);

} // namespace tk::checks
