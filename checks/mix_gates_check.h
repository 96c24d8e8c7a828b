//===- mix_gates_check.h - run mhc_pre_split_mixes / head_compute_mix -----===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "kernels/mhc/mix_gates.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct MixGateCase {
  kernels::mhc::MixGateKind kind;
  bool backward = false;
  int64_t tokens, streams = 4; ///< T, n
  /// The logits' row stride in elements (0: m, contiguous); more gives a
  /// column slice of a wider tensor (mhc_head's input).
  int64_t rowStride = 0;
  uint64_t seed = 1;
};

std::string describe(const MixGateCase &c);

/// randn logits, scale, base and gradients (mhc_engram.md 3.3, 3.6's draws;
/// post_mult 2, pre_eps 1e-2; the backward's post the forward's f32 output)
/// through the case's entry point on the GPU of `gpu` or the CPU path,
/// against the fp64 references: every output within the spec's tolerance
/// (split: 2e-5 + 1e-5 |ref|; head: 1e-5 + 1e-4 |ref|), grad_scale and
/// grad_base also within 1e-6 of the sum of their terms' magnitudes (fp32
/// sums of T terms); a second call bit-identical to the first
/// (countMismatches). bytes: the spec's formulas (3.3 item 4, 3.6 item 4).
CheckResult checkMixGate(GpuSession *gpu, tk_context ctx, const MixGateCase &c, bool time);

} // namespace tk::checks
