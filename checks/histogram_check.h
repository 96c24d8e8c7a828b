//===- histogram_check.h - run group_count / aux_fi, check, time ----------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/moe_inputs.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct HistogramCase {
  int64_t tokens, topk, experts, ranks; ///< moe.md 4.1's ids: local ids in [0, experts / ranks)
  int64_t auxTopk = 0;                  ///< 0: group_count with G = experts / ranks; else aux_fi's Ka
  bool edges = false;                   ///< ids outside [-1, G) too (counted nowhere)
  uint64_t seed = 1;
};

std::string describe(const HistogramCase &c);

/// moe.md 4.1's ids through tk_group_count or tk_aux_fi on the GPU of `gpu`
/// (timed when `time`) or the CPU path, compared bit for bit with the
/// reference (aux_fi: exact counts, then one rounding each way and an IEEE
/// division); bytes = ids read + counts (or fi) written.
CheckResult checkHistogram(GpuSession *gpu, tk_context ctx, const HistogramCase &c, bool time);

} // namespace tk::checks
