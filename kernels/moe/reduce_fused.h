//===- reduce_fused.h - expert outputs back into token order (moe.md 2.12) ===//
//
// out[t, h] = cast(acc * sf) with acc = +0 and, for k = 0 .. K-1 in order,
// where p = token_topk_to_pos[t, k] names a row of x (0 <= p < M):
// acc = fmaf(x[p, h], w[t, k] * x_sf[p], acc) (w = 1 without weights, the
// product only with x_sf). One rounding per step, as the reference, so the
// result is bit-exact; slots outside [0, M) add nothing. The cast is as is
// (f32), round to nearest even (bf16), or round to nearest even with
// saturation at +-448 and NaN -> 0x7F (e4m3). Each row of x a token names is
// read once (tile.gather_rows), each token's row written once.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <string>

namespace tk::kernels::moe {

struct ReduceFusedConfig {
  dsl::DType in = dsl::DType::BF16,
             out = dsl::DType::BF16; ///< x: F32 or BF16; out: x's, or F8E4M3
  int64_t hidden = 0, topk = 0;      ///< H and K, compile-time as in the reference
  bool weights = false, rowScale = false,
       scale = false;      ///< topk_weights, x_sf, sf given
  int64_t alignBytes = 16; ///< what x's and out's pointers and rows promise
  /// Schedule: tokens per CTA (0: 1), columns per CTA (0: the row, at most
  /// 4096, 8192 where the heuristic rolls the slots) and threads (0: 256, or
  /// 128 where the heuristic rolls the slots). On the H200, 17643 x 6 tokens of H = 7168
  /// bf16: 65.4% of the copy ceiling against 46.8% with 4 x 1024 on 128 threads.
  int64_t rows = 0, cols = 0, threads = 0;
  /// CTAs per SM its registers must allow (launch bounds; 0: none). At
  /// 256 threads ptxas gives K = 6 64 registers (4 CTAs per SM), K = 8 78
  /// (3) and K = 9 97 (2).
  int64_t blocks = 0;
  /// 1: the slots in a loop kept rolled, one slot's row in a thread's
  /// registers at a time (0: unrolled, every slot's row gathered first).
  int64_t rolled = 0;
  /// 1 (with rolled, one token per CTA): a slot naming no row is skipped by
  /// a branch the whole CTA takes (KernelBuilder::when), its FMAs included.
  int64_t skip = 0;
  /// The heuristic (no field set) at K >= 6: the rolled loop on 128 threads,
  /// slots naming no row skipped, rows of up to 8192 columns in one CTA.
  /// Unrolled, a thread holds every slot's row and the SM few tokens; on the
  /// H200 the rolled loop took 33839 x 9 from 404 to 342 us, 17643 x 6 from
  /// 178 to 165 (at K = 2 unrolled is 4% faster: 60.0 against 62.4); skipping
  /// with a whole 7168-column row per CTA took 17643 x 6 to 21010 x 8 a
  /// further 8-15% (169.0 -> 152.2, 221.8 -> 187.9 us; at K = 2 it lost 0-4%).
  bool heuristicRolls() const { return topk >= 6 && !rows && !cols && !threads && !blocks && !rolled && !skip; }
  bool slotsRolled() const { return rolled || heuristicRolls(); }
  bool skipsEmptySlots() const { return skip || heuristicRolls(); }
  int64_t rowsPerBlock() const { return rows ? rows : 1; }
  int64_t colsPerBlock() const;
  int64_t numThreads() const { return threads ? threads : heuristicRolls() ? 128 : 256; }
  std::string key() const;
};

const OperatorSchedule<ReduceFusedConfig> &reduceFusedSchedule();

/// Tensors in order: x (M, H), [x_sf (M)], [topk_weights (N, K)],
/// token_topk_to_pos (N, K) i32, [sf (1)], out (N, H); scalar M (i32), the
/// positions a slot may name (x's rows, or 0 with a stand-in x).
dsl::BuiltKernel buildReduceFused(mlir::MLIRContext &ctx, const ReduceFusedConfig &config);

/// Reference in f32 (x given as f32 values, out as f32 before the cast);
/// null xSf / weights / sf are absent.
void reduceFusedReference(const float *x, int64_t m, int64_t hidden, const float *xSf, const float *weights,
                          const int32_t *tokenTopkToPos, int64_t tokens, int64_t topk, const float *sf, float *out);

} // namespace tk::kernels::moe
