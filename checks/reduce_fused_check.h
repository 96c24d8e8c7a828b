//===- reduce_fused_check.h - run reduce_fused, check, time ---------------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/moe_inputs.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct ReduceFusedCase {
  int64_t tokens, topk, experts, ranks,
      hidden; ///< moe.md 4.1's routing: K of `experts` over `ranks`
  tk_dtype in = TK_BF16;
  bool e4m3 = false;     ///< out e4m3 with a global scale sf (else x's dtype, no sf)
  bool weights = true;   ///< topk_weights given
  bool rowScale = false; ///< x_sf given
  bool edges = false;    ///< slots naming positions past M, non-finite values and
                         ///< no expert rows at all (M = 0)
  uint64_t seed = 1;
};

std::string describe(const ReduceFusedCase &c);

/// moe.md 2.12's test: x of randn rows (16 more than the mapping uses),
/// the canonical mapping of moe.md 4.1's ids with alignment 1, weights rand,
/// x_sf randn, sf randn; through tk_reduce_fused on the GPU of `gpu` (timed
/// when `time`) or the CPU path, every output element compared bit for bit (any NaN matches a NaN) with the
/// reference; bytes = the spec's benchmark count.
CheckResult checkReduceFused(GpuSession *gpu, tk_context ctx, const ReduceFusedCase &c, bool time);

} // namespace tk::checks
