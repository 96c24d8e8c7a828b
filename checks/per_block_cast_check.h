//===- per_block_cast_check.h - run the per-block casts, check, time ------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

namespace tk::checks {

struct PerBlockCastCase {
  int64_t m, k, blockM, blockK;
  tk_dtype in; ///< TK_BF16 or TK_F32
  uint32_t flags;
  uint64_t seed = 1;
  tk_format fmt = TK_FORMAT_E4M3; ///< or TK_FORMAT_E2M1: out is (M, K / 2) i8
};

std::string describe(const PerBlockCastCase &c);

/// Random normal input through tk_per_block_cast (out and out_sf in the
/// case's layout), tk_per_block_cast_with_sf_only (out_sf) and
/// tk_per_block_cast_with_precomputed_sf (given the reference's row-major
/// scale factors), each compared bit for bit with the C++ reference; on the
/// GPU of `gpu` (the cast timed when `time`), or on the CPU path when null.
CheckResult checkPerBlockCast(GpuSession *gpu, tk_context ctx, const PerBlockCastCase &c, bool time);

} // namespace tk::checks
