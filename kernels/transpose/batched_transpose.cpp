//===- batched_transpose.cpp - the kernel, in the DSL, and its reference --===//
#include "kernels/transpose/batched_transpose.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

using namespace tk::dsl;

namespace tk::kernels::transpose {

std::string TransposeConfig::key() const {
  const std::string schedule = transposeSchedule().spec().print(*this);
  return std::string("batched_transpose:R=") + std::to_string(rows) + ",C=" + std::to_string(cols) +
         ",dtype=" + name(dtype) + ",xalign=" + std::to_string(xAlignBytes) + (schedule.empty() ? "" : "|" + schedule);
}

/// A tile that divides the matrix, whose shared buffer stays within 48 KB.
static std::string checkSchedule(const TransposeConfig &c) {
  const int64_t r = c.tileR(), k = c.tileC();
  if (r * k * byteSize(c.dtype) > 32768) // its padded shared buffer stays within 48 KB
    return "a " + std::to_string(r) + " x " + std::to_string(k) + " tile takes " +
           std::to_string(r * k * byteSize(c.dtype)) + " bytes of " + name(c.dtype) + ", over 32768";
  if (c.rows % r || c.cols % k)
    return "a " + std::to_string(r) + " x " + std::to_string(k) + " tile does not divide " + std::to_string(c.rows) +
           " x " + std::to_string(c.cols);
  return "";
}

/// Square and oblong tiles of 64 and 128, with 128 and 256 threads.
static std::vector<std::string> searchSpace(const TransposeConfig &, const compiler::Target &) {
  std::vector<std::string> out;
  for (const char *tile : {"rows=64,cols=64", "rows=128,cols=64", "rows=64,cols=128", "rows=128,cols=128"})
    for (const char *threads : {",threads=128", ",threads=256"})
      out.push_back(std::string(tile) + threads);
  return out;
}

const OperatorSchedule<TransposeConfig> &transposeSchedule() {
  using C = TransposeConfig;
  static const OperatorSchedule<C> schedule(
      "transpose", "tk_transpose, tk_batched_transpose",
      ScheduleSpec<C>({
          {&C::tileRows, {"rows", "rows of the CTA's tile of x (dividing its rows)", 16, 256, true, 0}},
          {&C::tileCols, {"cols", "columns of the CTA's tile of x (dividing its columns)", 16, 256, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

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
