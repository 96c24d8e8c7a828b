//===- expand_to_fused.h - token rows into expert segments (moe.md 2.10-2.11)
//===//
//
// expand_to_fused copies each token's row to every position its slots were
// given (token_topk_to_pos) and zeroes the padding positions (pos_to_expert
// < 0). Two kernels in the call's stream order, both of rows at
// data-dependent destinations (tile.scatter_rows): one over tokens that
// copies, one over positions that zeroes (or one kernel that does both, the
// schedule's `merged`). expand_to_fused_with_sf runs them for the data and
// again for the scale factors (merged: one kernel moves both), whose
// destination may be the TMA-aligned column-major layout: storage (Hs, ld)
// with ld = align(M, 4), element (p, j) at j * ld + p, written element by
// element (tile.scatter).
// Every destination is guarded: a position outside [0, M) writes nothing.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <string>

namespace tk::kernels::moe {

struct ExpandConfig {
  enum class Pass { Copy, ZeroPadding };
  Pass pass = Pass::Copy;
  dsl::DType dtype = dsl::DType::BF16; ///< the rows' elements (data, or F32 /
                                       ///< I32 scale factors)
  int64_t width = 0;                   ///< elements per row (H, or Hs)
  int64_t topk = 0;                    ///< K slots per token (Copy)
  bool colMajor = false;               ///< destination is column-major storage (Hs, ld), ld a
                                       ///< scalar argument
  int64_t alignBytes = 16;             ///< what the row tensors' pointers and strides promise
  /// Copy, merged only: the rows' scale factors moved by the same kernel
  /// (with_sf in one launch): x_sf (N, sfWidth) of sfDtype to out_sf, (M,
  /// sfWidth) or column-major storage (then with scalars ld and M); 0: none.
  int64_t sfWidth = 0;
  dsl::DType sfDtype = dsl::DType::I32;
  bool sfColMajor = false;
  int64_t sfAlignBytes = 4;
  /// Schedule: rows per CTA (0: 8, more for narrow rows such as scale
  /// factors, so that every thread has a chunk), columns per CTA (0: the
  /// row, at most 2048 elements) and threads (0: 128).
  int64_t rows = 0, cols = 0, threads = 0;
  /// Schedule: 1 (Copy) also zeroes the padding positions, in the same
  /// launch (blocks past the tokens' take pos_to_expert's rows), as
  /// TileKernels' one kernel does; unset: a second kernel zeroes them.
  int64_t merged = 0;
  /// Schedule: 1 (Copy, one token per CTA: rows=1) a slot naming no
  /// position skipped by a branch the CTA takes together (TileKernels'
  /// kernel branches so); unset: its stores are predicated off.
  int64_t skip = 0;
  /// Schedule (merged): positions per padding CTA, a multiple of its rows
  /// (0: its rows). A padding CTA mostly finds no padding and writes nothing;
  /// taking several rows' positions each keeps a grid of small CTAs from
  /// trailing the copies (they run after the copy blocks).
  int64_t padRows = 0;
  int64_t rowsPerBlock() const;
  int64_t paddingRowsPerBlock() const { return padRows ? padRows : rowsPerBlock(); }
  int64_t colsPerBlock() const;
  int64_t numThreads() const { return threads ? threads : 128; }
  std::string key() const;
};

const OperatorSchedule<ExpandConfig> &expandSchedule();

/// Copy: tensors x (N, W), token_topk_to_pos (N, K) i32, out (M, W) or, column
/// major, out storage (S) with scalars ld and M. Merged: x, [x_sf], token_topk_to_pos,
/// pos_to_expert (M) i32, out, [out_sf], [ld, M]. ZeroPadding: pos_to_expert (M,
/// 1) i32, out as Copy's.
dsl::BuiltKernel buildExpand(mlir::MLIRContext &ctx, const ExpandConfig &config);

/// Reference: rows of `width` elements of `bytes` each; dst[p] = src[t] for
/// every slot (t, k) with p = pos[t, k] in [0, positions), zero where
/// pos_to_expert[p] < 0; column-major destinations at j * ld + p.
void expandReference(const void *src, int64_t tokens, int64_t topk, const int32_t *tokenTopkToPos,
                     const int32_t *posToExpert, int64_t positions, int64_t width, int64_t bytes, bool colMajor,
                     int64_t ld, void *dst);

} // namespace tk::kernels::moe
