//===- batched_transpose.h - out[b, c, r] = x[b, r, c] (quant.md 4.19) ----===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <string>

namespace tk::kernels::transpose {

/// Rows and columns are compile-time (multiples of 64); the batch is dynamic.
struct TransposeConfig {
  int64_t rows = 0, cols = 0;
  dsl::DType dtype = dsl::DType::I16; ///< the element's bits: I8, I16 or I32
  int64_t xAlignBytes = 16; ///< alignment of x's pointer and row/batch strides in bytes
  /// x's tile per CTA (rows x columns, each dividing rows and cols); 0: the
  /// default of tileR() / tileC().
  int64_t tileRows = 0, tileCols = 0;
  /// Threads per CTA; 0: the default of numThreads().
  int64_t threads = 0;

  /// 1- and 2-byte elements: 128 x 128 tiles and 256 threads where 128
  /// divides rows and columns (TileKernels' shape; 8 x 4096 x 7168 on the
  /// H200: bf16 238.3 -> 231.5 us, e4m3 129.8 -> 123.6 against the earlier
  /// defaults in the same call). Else, 128 x 64 for 2-byte
  /// elements when 128 divides the rows (91.1% of the copy ceiling against
  /// 88.2% for 64 x 64), and 64 x 64 (f32 ran slower with 128 rows
  /// and takes 64 KiB of shared memory at 128 x 128), with 128 threads.
  bool wideTile() const { return dtype != dsl::DType::I32 && rows % 128 == 0 && cols % 128 == 0; }
  int64_t tileR() const {
    return tileRows ? tileRows : wideTile() || (dtype == dsl::DType::I16 && rows % 128 == 0) ? 128 : 64;
  }
  int64_t tileC() const { return tileCols ? tileCols : wideTile() ? 128 : 64; }
  /// 256 for a 128 x 128 tile, else 128.
  int64_t numThreads() const { return threads ? threads : tileR() == 128 && tileC() == 128 ? 256 : 128; }
  std::string key() const;
};

/// The transposes' schedule: tile and threads.
const OperatorSchedule<TransposeConfig> &transposeSchedule();

dsl::BuiltKernel buildBatchedTranspose(mlir::MLIRContext &ctx, const TransposeConfig &config);

/// Reference: x is (batch, rows, cols) with strides (batchStride, rowStride, 1)
/// in elements of `elementBytes`; out is (batch, cols, rows) contiguous.
void batchedTransposeReference(const void *x, int64_t elementBytes, int64_t batch, int64_t rows, int64_t cols,
                               int64_t batchStride, int64_t rowStride, void *out);

} // namespace tk::kernels::transpose
