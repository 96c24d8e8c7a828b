//===- transpose_check.h - run (batched_)transpose, check, time -----------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

namespace tk::checks {

struct TransposeCase {
  int64_t batch, rows, cols;
  tk_dtype dtype;
  int64_t rowStride = 0; ///< 0: contiguous rows
  bool batched = true;   ///< tk_batched_transpose, else tk_transpose (batch must be 1)
};

std::string describe(const TransposeCase &c);

/// Random bytes in, compared bit for bit with the reference; on the GPU of
/// `gpu` (timed when `time`), or on the CPU path when `gpu` is null.
CheckResult checkTranspose(GpuSession *gpu, tk_context ctx, const TransposeCase &c, bool time);

} // namespace tk::checks
