//===- gate_forward.h - the Engram gate's forward (mhc_engram.md 4.3) -----===//
//
// Per token t and stream h, over the H columns in fp32: sx = sum x^2,
// sk = sum k^2, raw = sum (x wf) k; rx = rsqrt(sx / H + eps), rk likewise;
// s = raw rx rk / sqrt(H); g = sigmoid(copysign(sqrt(max(|s|, clamp)), s));
// out = bf16(x + g v[t]). Saved for the backward (optional): raw, g, rx, rk.
// A CTA takes one stream of `rows` tokens and streams their x, k and v rows
// through shared memory, the next `stages - 1` tokens' copies in flight
// while it computes one (as the reference does; past 48 KB of shared memory
// at large H); the three sums are block reductions, then out is written
// from registers. With stages = 1 (and past H = 12288), one CTA per (token,
// stream) holds the whole row in registers instead.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <cstdint>
#include <string>

namespace tk::kernels::engram {

struct GateForwardConfig {
  int64_t hidden = 0; ///< H: compile-time, as in the reference
  bool save = true;   ///< also write dot, gate, rstd_x, rstd_k
  /// Schedule: threads per CTA (0: H / 32 rounded up to a power of two, from 64 to 512).
  int64_t threads = 0;
  /// Schedule: 1, one CTA per (token, stream), rows in registers; 2 or
  /// more, the pipelined kernel with that many versions of the shared rows
  /// (0: 2 up to H = 12288, 1 past it: 2 x 6 H bytes must fit sm_80).
  int64_t stages = 0;
  /// Schedule: tokens per CTA of the pipelined kernel (0: 8).
  int64_t rows = 0;
  int64_t numStages() const;
  int64_t numRows() const { return rows ? rows : 8; }
  int64_t numThreads() const;
  std::string key() const;
};

const OperatorSchedule<GateForwardConfig> &gateForwardSchedule();

/// Whether `rowsBytes` of shared rows (all a pipeline's versions) and the
/// block reductions' scratch fit `limit` bytes of shared memory per block
/// (0: no limit, as on the CPU path). The gate's pipelined defaults and
/// search spaces keep to it. `scratch`: what the reductions may take beside
/// the rows (4 KB; the fused backward's, whose buffers come within 3 KB of
/// sm_90a's limit at H = 7168, measures 1 KB).
bool gateSharedRowsFit(int64_t rowsBytes, int64_t limit, int64_t scratch = 4096);

/// The alignment (bytes) the gate's kernels assume for rows of H bf16
/// columns: 16 for H % 8 == 0, less otherwise (a row stride of 2 H bytes).
int64_t gateRowAlignBytes(int64_t hidden);

/// Tensors: x (T, n, H) bf16; k (T, n, H) bf16, unit last stride; v as
/// (T, 1, H) bf16, unit last stride; wf as (1, n, H) f32; out (T, n, H)
/// bf16; with save, dot, gate, rstd_x, rstd_k as (T, n, 1) f32. Scalars:
/// eps, clamp, 1 / sqrt(H) (f32).
dsl::BuiltKernel buildGateForward(mlir::MLIRContext &ctx, const GateForwardConfig &config);

/// 4.3's math in fp64 on host arrays (x, k, v as f32 values of their bf16
/// elements; k and v contiguous): out in fp64 (before the bf16 rounding; not
/// computed when null),
/// dot, gate, rstd_x, rstd_k (T, n). `absSum` (T, n) gets sum |x wf k|, the
/// scale of the dot's rounding error.
void gateForwardReference(const float *x, const float *k, const float *v, const float *wf, int64_t tokens,
                          int64_t streams, int64_t hidden, double eps, double clamp, double *out, double *dot,
                          double *gate, double *rstdX, double *rstdK, double *absSum);

} // namespace tk::kernels::engram
