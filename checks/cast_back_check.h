//===- cast_back_check.h - run cast_back, check, time ---------------------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

namespace tk::checks {

struct CastBackCase {
  int64_t m, k, blockM, blockK;
  tk_dtype out;            ///< TK_BF16 or TK_F32
  bool sfColMajor = false; ///< scale factors in TMA-aligned column-major strides
  bool powerOfTwoSf = false;
  /// Scale factors as packed UE8M0 int32 words (column-major, word-column
  /// stride align(Mb, 4) + 4); implies power-of-two scale factors.
  bool packedSf = false;
  /// x's format: e4m3 codes, (M, K / 2) i8 of packed FP4 codes (E2M1), or
  /// (M, 3 K / 2) u8 of packed E5M6 codes.
  tk_format in = TK_FORMAT_E4M3;
};

std::string describe(const CastBackCase &c);

/// Random codes (no NaN or Inf codes) and random positive scale factors in,
/// compared bit for bit with the reference; on the GPU of `gpu` (timed when
/// `time`), or on the CPU path when `gpu` is null.
CheckResult checkCastBack(GpuSession *gpu, tk_context ctx, const CastBackCase &c, bool time);

} // namespace tk::checks
