//===- grad_w_reduce.h - the Engram gate's weight gradients (mhc_engram.md 4.5) ===//
//
// gW = sum over p of partial[p] (P, n H), then grad_wh += gW f(we) and
// grad_we += gW f(wh), in place. A CTA takes `columns` of the flat n H:
// a loop over the P rows in chunks of `rows` carries a (rows, columns)
// accumulator in registers (each thread adds its own elements, chunk after
// chunk; with `stages`, the chunks through shared memory, pipelined), and one
// column sum after the loop finishes gW. The order is fixed
// by the schedule, not by the SM count or the launch: the same bits every
// run.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <cstdint>
#include <string>

namespace tk::kernels::engram {

struct GradWReduceConfig {
  /// Schedule: partial rows per iteration (0: 128), columns per CTA (0: 32), threads (0: 256): few
  /// iterations for the reference's P (the SM count) and many CTAs. 256 rows, which `tk tune` kept for
  /// the H200 (kernels/tuning/table.tsv), spill on sm_100a.
  int64_t rows = 0, columns = 0, threads = 0;
  /// Schedule: 2..8: the (rows, columns) chunks through that many shared buffers, copied ahead by cp.async
  /// (tile.pipeline; as TileKernels' kernel streams its rows); 0 or 1: loaded in the loop. The same sums in the
  /// same order either way.
  int64_t stages = 0;
  /// Not a schedule: what the call's tensors allow. 4 when n H is a multiple
  /// of 4 and the pointers are aligned for 4 values (16 bytes of f32, 8 of
  /// bf16): each thread then reads 16-byte vectors. 1 otherwise (scalar
  /// accesses: 4.5 allows any n H).
  int64_t vector = 1;
  int64_t rowsPerStep() const { return rows ? rows : 128; }
  int64_t columnsPerBlock() const { return columns ? columns : 32; }
  int64_t numThreads() const { return threads ? threads : 256; }
  int64_t numStages() const { return stages ? stages : 1; }
  std::string key() const;
};

const OperatorSchedule<GradWReduceConfig> &gradWReduceSchedule();

/// Tensors: partial (P, n H) f32; wh, we (n H) bf16; grad_wh, grad_we (n H)
/// f32, read and written.
dsl::BuiltKernel buildGradWReduce(mlir::MLIRContext &ctx, const GradWReduceConfig &config);

} // namespace tk::kernels::engram
