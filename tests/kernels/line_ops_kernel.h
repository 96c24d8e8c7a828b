// A kernel of the DSL's line ops (scan_sum, count_equal: tile.scan,
// tile.count_equal) along both dimensions of a tile, and its check against
// C++ on the CPU path or a GPU (tests/unit/line_ops_test.cpp,
// tests/kernels/line_ops_gpu_test.cpp).
#pragma once

#include "checks/gpu_session.h"
#include "tests/kernels/run_test_kernel.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tk::test_kernels {

constexpr int kLineOps = 7;

/// The tile the ops run on, and its layout's knobs: [16, 64] on 128 threads
/// (4 values per thread: every line through shared memory), or [8, 32] on
/// 256 threads one value each (a warp per row: count_equal along the rows
/// with match.any.sync).
struct LineShape {
  int64_t rows = 16, cols = 64, threads = 128, maxAccessBytes = 0;
  std::string key() const { return std::to_string(rows) + "x" + std::to_string(cols); }
};

/// out[r, cols op + c] = op over the [rows, cols] tile of keys holding row
/// r (i32): scans along the row (inclusive, exclusive) and down the tile's
/// rows (inclusive, exclusive), equal keys along the row (all, before) and
/// before in the column.
inline dsl::BuiltKernel buildLineOps(mlir::MLIRContext &ctx, const LineShape &shape) {
  using namespace tk::dsl;
  const int64_t kLineRows = shape.rows, kLineCols = shape.cols;
  KernelBuilder k(ctx, "line_ops", shape.threads);
  if (shape.maxAccessBytes)
    k.maxAccessBytes(shape.maxAccessBytes);
  Dim rows = k.dynamic("rows", kLineRows);
  Tensor keys = k.input("keys", {rows, kLineCols}, DType::I32);
  Tensor out = k.output("out", {rows, kLineCols * kLineOps}, DType::I32);
  k.grid({ceil_div(rows, kLineRows)}, [&](const std::vector<Index> &blk) {
    Index row = blk[0] * kLineRows;
    Tile t = k.load(keys, {row, k.index(0)}, {kLineRows, kLineCols});
    const Tile results[kLineOps] = {scan_sum(t, 1),         scan_sum(t, 1, true), scan_sum(t, 0),
                                    scan_sum(t, 0, true),   count_equal(t, 1),    count_equal(t, 1, true),
                                    count_equal(t, 0, true)};
    for (int op = 0; op < kLineOps; ++op)
      k.store(out, {row, k.index(kLineCols * op)}, results[op]);
  });
  return k.finish();
}

/// What buildLineOps must compute at (r, c) of the tile `t` (row-major [rows, cols]).
inline int32_t lineOpReference(int op, const int32_t *t, int64_t r, int64_t c, int64_t kLineCols) {
  int64_t v = 0;
  const int32_t key = t[r * kLineCols + c];
  switch (op) {
  case 0:
  case 1:
    for (int64_t j = 0; j < c + (op == 0); ++j)
      v += t[r * kLineCols + j];
    break;
  case 2:
  case 3:
    for (int64_t i = 0; i < r + (op == 2); ++i)
      v += t[i * kLineCols + c];
    break;
  case 4:
  case 5:
    for (int64_t j = 0; j < (op == 4 ? kLineCols : c); ++j)
      v += t[r * kLineCols + j] == key;
    break;
  default:
    for (int64_t i = 0; i < r; ++i)
      v += t[i * kLineCols + c] == key;
  }
  return (int32_t)(uint32_t)v; // sums wrap as the i32 scan does
}

/// Runs buildLineOps over `m` rows (a multiple of the tile's) of keys in a
/// small range (many equal) and large values (sums that wrap); the number of
/// wrong elements, or -1 (and `error`).
inline int64_t checkLineOps(tk_context ctx, checks::Placement where, const LineShape &shape, int64_t m,
                            std::string &error) {
  const int64_t kLineRows = shape.rows, kLineCols = shape.cols;
  std::vector<int32_t> keys(m * kLineCols), out(m * kLineCols * kLineOps, -1);
  std::mt19937 rng(777);
  for (int32_t &v : keys)
    v = rng() % 5 ? (int32_t)(rng() % 6) - 1 : (int32_t)rng();
  void *dk = where.put(keys.data(), keys.size() * 4), *dout = where.poisoned(out.data(), out.size() * 4, 0xEE);
  tk_tensor tk_keys = where.tensor(dk, TK_I32, {m, kLineCols}),
            tk_out = where.tensor(dout, TK_I32, {m, kLineCols * kLineOps});
  if (!runTestKernel(ctx, runtime::factoryOf(buildLineOps, shape), {&tk_keys, &tk_out}, error))
    return -1;
  where.get(out.data(), dout, out.size() * 4);
  int64_t wrong = 0;
  for (int64_t r = 0; r < m; ++r)
    for (int op = 0; op < kLineOps; ++op)
      for (int64_t c = 0; c < kLineCols; ++c) {
        const int32_t *tile = &keys[(r / kLineRows) * kLineRows * kLineCols];
        const int32_t want = lineOpReference(op, tile, r % kLineRows, c, kLineCols),
                      got = out[(r * kLineOps + op) * kLineCols + c];
        if (got != want) {
          if (!wrong)
            error = "op " + std::to_string(op) + " at (" + std::to_string(r) + ", " + std::to_string(c) + "): got " +
                    std::to_string(got) + ", want " + std::to_string(want);
          ++wrong;
        }
      }
  return wrong;
}

} // namespace tk::test_kernels
