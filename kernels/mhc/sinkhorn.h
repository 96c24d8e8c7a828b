//===- sinkhorn.h - Sinkhorn-Knopp on n x n matrices (mhc_engram.md 3.4) --===//
//
// Per matrix (r indexes dim -2, c dim -1): S = softmax over c of x (the row
// maximum subtracted), P = S + eps, then a column step P[r, c] /= (sum over
// r of P[., c] + eps), and repeat - 1 times a row step (the sum over c) then
// a column step: repeat column steps and repeat - 1 row steps, true fp32
// divisions. The backward recomputes the forward (multiplying by reciprocals,
// SinkhornDivision::Reciprocal: within its tolerance), keeping every step's
// input and reciprocal denominators r = 1 / d (unrolled: values of the
// program, in registers; rolled: in shared memory, the column steps' inputs
// and every step's r, a row step's input recomputed from the column step
// before it), and walks them in reverse with the
// normalisation's VJP (G - (sum G X) / d) / d (as (G - (sum G X) r) r,
// r = 1 / d: sinkhornStepVjp), the eps addition's identity
// and the softmax's (G - sum G S) S.
// A CTA takes `rows` matrices as one [rows, n, n] tile.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tk::kernels::mhc {

struct SinkhornConfig {
  int64_t n = 4, repeat = 10; ///< compile-time, as in the reference
  bool backward = false;
  /// Schedule: matrices per CTA (0: 512 elements, n^2 a matrix, rounded down
  /// to a power of two, at least 1; a rolled backward's 4 elements a thread,
  /// at most what keeps its snapshots within 48 KB), threads per CTA (0: 32
  /// for a rolled backward, else 128).
  int64_t rows = 0, threads = 0;
  /// Schedule: CTAs an SM must hold at once (ptxas keeps the registers low
  /// enough, spilling if it must); 0: no bound. For the unrolled backward,
  /// whose recompute takes 168 registers at 32 matrices a CTA.
  int64_t minBlocks = 0;
  /// Schedule: 1 or unset (-1), the steps as a loop over the repeat count,
  /// the backward's snapshots of them in shared memory (a program whose size
  /// does not grow with repeat); 0, unrolled. The same bits either way at
  /// the same rows and threads.
  int64_t rolled = -1;
  bool isRolled() const { return rolled != 0; }
  /// Shared memory of a rolled backward's snapshots, bytes.
  int64_t snapshotBytes() const;
  int64_t numRows() const;
  int64_t numThreads() const { return threads ? threads : backward && isRolled() ? 32 : 128; }
  std::string key() const;
};

/// The f32 buffers of a rolled backward's snapshots (SinkhornSnapshots) for a
/// CTA of `rows` matrices: column step r (r = 0 .. repeat - 1) at rows
/// [r rows, (r + 1) rows) of colInputs and colDivisors; row step r (r = 1 ..
/// repeat - 1) at (r - 1) rows of rowDivisors (one tile of rows, unused, at
/// repeat 1); a row step's input is recomputed from the column step before
/// it. One formula for the kernel's buffers and the schedule's shared-memory
/// bound.
struct SinkhornSnapshotShapes {
  std::vector<int64_t> colInputs, colDivisors, rowDivisors;
  int64_t bytes() const;
};
SinkhornSnapshotShapes sinkhornSnapshotShapes(int64_t n, int64_t rows, int64_t repeat);

const OperatorSchedule<SinkhornConfig> &sinkhornSchedule(bool backward);

/// Tensors: forward x (M, n, n) f32; out (M, n, n) f32. Backward grad_out,
/// x (M, n, n) f32; grad_x (M, n, n) f32. Scalar: eps (f32).
dsl::BuiltKernel buildSinkhorn(mlir::MLIRContext &ctx, const SinkhornConfig &config);

/// The forward's and the backward's math in fp64 on host arrays (M, n, n),
/// eps as the f32 value the kernel takes: out, or gradX from gradOut.
void sinkhornForwardReference(const float *x, int64_t matrices, int64_t n, int64_t repeat, float eps, double *out);
void sinkhornBackwardReference(const float *gradOut, const float *x, int64_t matrices, int64_t n, int64_t repeat,
                               float eps, double *gradX);

} // namespace tk::kernels::mhc
