//===- lossless_check.h - run per_block_cast_lossless, check, time --------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

namespace tk::checks {

struct LosslessCase {
  int64_t m, k, bIn, gIn, bOut, gOut;
  /// The spec's (T, T, T) scale factors on each side: packed UE8M0 words,
  /// column-major; else fp32 row-major (F, T, F).
  bool inPacked = false, outPacked = false;
  uint64_t seed = 1;
  /// Puts one input block 12 exponents below its output block's maximum:
  /// the call must fail with TK_ERROR_INVALID_ARGUMENT.
  bool outOfRange = false;
  /// Nonzero: input block (0, 1) gets this scale, not a power of two (3,
  /// -2, NaN, Inf): the call must fail with TK_ERROR_INVALID_DATA.
  float badScale = 0.0f;
};

std::string describe(const LosslessCase &c);

/// Random FP4 codes with power-of-two input scales that span 11 exponents (and
/// some all-zero blocks with zero scales) through tk_per_block_cast_lossless;
/// out and out_sf compared bit for bit with the C++ reference, and every
/// element checked for dec(out) * sf_out == dec(x) * sf_in. On the GPU of
/// `gpu` (timed when `time`), or on the CPU path when null.
CheckResult checkPerBlockLossless(GpuSession *gpu, tk_context ctx, const LosslessCase &c, bool time);

} // namespace tk::checks
