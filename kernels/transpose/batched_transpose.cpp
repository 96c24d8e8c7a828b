//===- batched_transpose.cpp - the kernel, in the DSL ---------------------===//
#include "kernels/transpose/batched_transpose.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

using namespace tk::dsl;

namespace tk::kernels::transpose {

BuiltKernel buildBatchedTranspose(mlir::MLIRContext &ctx, const TransposeConfig &c) {
  const int64_t tr = c.tileR(), tc = c.tileC();
  if (tr <= 0 || tc <= 0 || c.rows % tr || c.cols % tc)
    throw std::invalid_argument("batched transpose: the tile must divide rows and columns");
  KernelBuilder k(ctx, "batched_transpose", c.numThreads());
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  Dim batch = k.dynamic("batch");
  Tensor x = k.input("x", {batch, c.rows, c.cols}, c.dtype, {kDynamicStride, kDynamicStride, 1}, c.xAlignBytes);
  Tensor out = k.output("out", {batch, c.cols, c.rows}, c.dtype);
  k.grid({c.cols / tc, c.rows / tr, batch}, [&](const std::vector<Index> &b) {
    Tile tile = k.load(x, {b[2], b[1] * tr, b[0] * tc}, {1, tr, tc});
    k.store(out, {b[2], b[0] * tc, b[1] * tr}, dsl::transpose(tile));
  });
  return k.finish();
}

} // namespace tk::kernels::transpose
