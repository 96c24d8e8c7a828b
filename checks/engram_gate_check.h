//===- engram_gate_check.h - run the Engram gate's kernels, check, time ---===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct GateForwardCase {
  int64_t tokens, streams = 4, hidden; ///< T, n, H
  bool save = true;                    ///< the mode a benchmark row times (checks run both)
  bool strided = false;                ///< k and v with padded row strides
  uint64_t seed = 1;
};

struct GateBackwardCase {
  int64_t tokens, streams = 4, hidden; ///< T, n, H
  int64_t blocks = 132;                ///< P: grad_w_partial's rows (the reference's SM count)
  bool strided = false;                ///< k and v with padded row strides
  uint64_t seed = 1;
};

struct GradWReduceCase {
  int64_t blocks = 132, streams = 4, hidden; ///< P (the reference's SM count), n, H
  uint64_t seed = 1;
};

std::string describe(const GateForwardCase &c);
std::string describe(const GateBackwardCase &c);
std::string describe(const GradWReduceCase &c);

/// mhc_engram.md 4.3's draws (randn x, k, v, bf16 weights; eps 1e-20, clamp
/// 1e-6) through tk_engram_gate_fwd with and without the saved statistics
/// on the GPU of `gpu` or the CPU path. Against gateForwardReference (fp64):
/// out within one bf16 ulp, dot within 1e-5 of sum |x wf k|, gate within
/// that error carried through the square root and the sigmoid, rstd_x and
/// rstd_k within 1e-5 relative; and out bit-identical in both modes
/// (countMismatches). bytes = x, k, v, wf, out (+ the statistics when saved).
CheckResult checkGateForward(GpuSession *gpu, tk_context ctx, const GateForwardCase &c, bool time);

/// 4.4's draws (randn dout, x, k, v, bf16 weights; clamp 1e-6) and the
/// statistics of the fp64 forward rounded to f32 (the kernel is fed the
/// reference's intermediates, as in the reference's test) through
/// tk_engram_gate_bwd twice. Against gateBackwardReference (fp64): grad_x,
/// grad_k, grad_v within one bf16 ulp plus what the fp32 sums leave (dg's
/// within 1e-5 of sum |dout v|, carried through rho); every row of
/// grad_w_partial within its tokens' rho error times |x k| and fp32's
/// rounding of its sum (rows of blocks without tokens exactly zero); the two
/// runs bit-identical (countMismatches). bytes = 4.4's minimum: dout, x, k,
/// v, wf, the statistics read; grad_x, grad_k, grad_v, the partials written.
CheckResult checkGateBackward(GpuSession *gpu, tk_context ctx, const GateBackwardCase &c, bool time);

/// randn partials, weights and starting gradients through
/// tk_engram_grad_w_reduce twice from the same start: against an fp64
/// sequential sum (within 1e-6 of the magnitudes summed), and the two runs
/// bit-identical (countMismatches). bytes = 4 P n H + 20 n H.
CheckResult checkGradWReduce(GpuSession *gpu, tk_context ctx, const GradWReduceCase &c, bool time);

} // namespace tk::checks
