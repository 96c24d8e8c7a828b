//===- batched_transpose.cpp - the kernel, in the DSL, and its reference --===//
#include "kernels/transpose/batched_transpose.h"

#include <cstring>

using namespace tk::dsl;

namespace tk::kernels::transpose {

std::string TransposeConfig::key() const {
  return std::string("batched_transpose:R=") + std::to_string(rows) + ",C=" + std::to_string(cols) +
         ",dtype=" + name(dtype) + ",xalign=" + std::to_string(xAlignBytes);
}

BuiltKernel buildBatchedTranspose(mlir::MLIRContext &ctx, const TransposeConfig &c) {
  const int64_t t = TransposeConfig::kTile;
  KernelBuilder k(ctx, "batched_transpose", c.key(), /*threads=*/128);
  Dim batch = k.dynamic("batch");
  Tensor x = k.input("x", {batch, c.rows, c.cols}, c.dtype, {kDynamicStride, kDynamicStride, 1}, c.xAlignBytes);
  Tensor out = k.output("out", {batch, c.cols, c.rows}, c.dtype);
  k.grid({c.cols / t, c.rows / t, batch}, [&](const std::vector<Index> &b) {
    Tile tile = k.load(x, {b[2], b[1] * t, b[0] * t}, {1, t, t});
    k.store(out, {b[2], b[0] * t, b[1] * t}, dsl::transpose(tile));
  });
  return k.finish();
}

void batchedTransposeReference(const void *x, int64_t elementBytes, int64_t batch, int64_t rows, int64_t cols,
                               int64_t batchStride, int64_t rowStride, void *out) {
  auto *src = static_cast<const uint8_t *>(x);
  auto *dst = static_cast<uint8_t *>(out);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        std::memcpy(dst + ((b * cols + c) * rows + r) * elementBytes,
                    src + (b * batchStride + r * rowStride + c) * elementBytes, elementBytes);
}

} // namespace tk::kernels::transpose
