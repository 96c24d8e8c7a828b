//===- batched_transpose.h - out[b, c, r] = x[b, r, c] (quant.md 4.19) ----===//
#pragma once

#include "tk/dsl/KernelBuilder.h"

#include <string>

namespace tk::kernels::transpose {

/// Rows and columns are compile-time (multiples of 64); the batch is dynamic.
struct TransposeConfig {
  int64_t rows = 0, cols = 0;
  dsl::DType dtype = dsl::DType::I16; ///< the element's bits: I8, I16 or I32
  int64_t xAlignBytes = 16; ///< alignment of x's pointer and row/batch strides in bytes
  /// x's tile per CTA (rows x columns, each dividing rows and cols): 64 x 64.
  int64_t tileRows = 64, tileCols = 64;

  std::string key() const;
};

/// Applies TK_TRANSPOSE_TILE=ROWSxCOLS (a tuning experiment: powers of two
/// from 16 to 256 dividing the config's rows and columns, at most 32 KB). Unset or empty: "" and nothing changes; otherwise "" with the
/// tile set, or an error naming the variable.
std::string applyTileOverride(TransposeConfig &config);

dsl::BuiltKernel buildBatchedTranspose(mlir::MLIRContext &ctx, const TransposeConfig &config);

/// Reference: x is (batch, rows, cols) with strides (batchStride, rowStride, 1)
/// in elements of `elementBytes`; out is (batch, cols, rows) contiguous.
void batchedTransposeReference(const void *x, int64_t elementBytes, int64_t batch, int64_t rows, int64_t cols,
                               int64_t batchStride, int64_t rowStride, void *out);

} // namespace tk::kernels::transpose
