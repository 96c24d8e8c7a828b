//===- batched_transpose.cpp - the kernel, in the DSL, and its reference --===//
#include "kernels/transpose/batched_transpose.h"
#include "kernels/common/tuning_setting.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

using namespace tk::dsl;

namespace tk::kernels::transpose {

std::string TransposeConfig::key() const {
  return std::string("batched_transpose:R=") + std::to_string(rows) + ",C=" + std::to_string(cols) +
         ",dtype=" + name(dtype) + ",xalign=" + std::to_string(xAlignBytes) +
         (tileR() == 64 && tileC() == 64 ? "" : ",tile=" + std::to_string(tileR()) + "x" + std::to_string(tileC())) +
         (threads ? ",threads=" + std::to_string(threads) : "");
}

std::string applyTileOverride(TransposeConfig &c) {
  if (std::string error = readPowerOfTwoSetting("TK_TRANSPOSE_THREADS", 32, 1024, "threads", c.threads);
      !error.empty())
    return error;
  SizesSetting tile;
  if (std::string error = readSizesSetting("TK_TRANSPOSE_TILE", "ROWSxCOLS", tile); !error.empty() ||
      tile.text.empty())
    return error;
  const int64_t r = tile.values[0], k = tile.values[1];
  if (!isPowerOfTwoIn(r, 16, 256) || !isPowerOfTwoIn(k, 16, 256))
    return tile.unusable("TK_TRANSPOSE_TILE", "ROWSxCOLS must be powers of two from 16 to 256");
  if (r * k * byteSize(c.dtype) > 32768) // its padded shared buffer stays within 48 KB
    return "TK_TRANSPOSE_TILE '" + tile.text + "' takes " + std::to_string(r * k * byteSize(c.dtype)) +
           " bytes of " + name(c.dtype) + ", over 32768";
  if (c.rows % r || c.cols % k)
    return "TK_TRANSPOSE_TILE '" + tile.text + "' does not divide " + std::to_string(c.rows) + " x " +
           std::to_string(c.cols);
  c.tileRows = r, c.tileCols = k;
  return "";
}

BuiltKernel buildBatchedTranspose(mlir::MLIRContext &ctx, const TransposeConfig &c) {
  const int64_t tr = c.tileR(), tc = c.tileC();
  if (tr <= 0 || tc <= 0 || c.rows % tr || c.cols % tc)
    throw std::invalid_argument("batched transpose: the tile must divide rows and columns");
  KernelBuilder k(ctx, "batched_transpose", c.numThreads());
  Dim batch = k.dynamic("batch");
  Tensor x = k.input("x", {batch, c.rows, c.cols}, c.dtype, {kDynamicStride, kDynamicStride, 1}, c.xAlignBytes);
  Tensor out = k.output("out", {batch, c.cols, c.rows}, c.dtype);
  k.grid({c.cols / tc, c.rows / tr, batch}, [&](const std::vector<Index> &b) {
    Tile tile = k.load(x, {b[2], b[1] * tr, b[0] * tc}, {1, tr, tc});
    k.store(out, {b[2], b[0] * tc, b[1] * tr}, dsl::transpose(tile));
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
