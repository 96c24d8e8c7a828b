//===- mhc_streams_check.h - run mHC's n-stream kernels, check, time ------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "kernels/mhc/streams.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct MhcStreamsCase {
  kernels::mhc::StreamOp op;
  int64_t tokens, streams = 4, hidden; ///< T, n, H
  bool accumulate = false;             ///< apply_mix bwd: into a buffer holding earlier gradients
  uint64_t seed = 1;
};

std::string describe(const MhcStreamsCase &c);

/// randn bf16 streams and rows, randn f32 mixes (apply_mix's a softmax over
/// the streams, as mhc_engram.md 3.5's test draws them) through the case's
/// entry point on the GPU of `gpu` or the CPU path: every bf16 output bit
/// for bit against kernels/mhc/streams.h's references (the spec's order,
/// fma per term); grad_mix, grad_post and grad_comb within 1e-5 of the sum
/// of their terms' magnitudes of the fp64 sums; a second call's outputs
/// bit-identical to the first's (countMismatches). bytes = the spec's
/// formulas (3.1, 3.5, 3.7).
CheckResult checkMhcStreams(GpuSession *gpu, tk_context ctx, const MhcStreamsCase &c, bool time);

} // namespace tk::checks
