//===- topk_gate.cpp ------------------------------------------------------===//
#include "kernels/moe/topk_gate.h"
#include "tk/dsl/Select.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tk::kernels::moe {

using namespace tk::dsl;

BuiltKernel buildTopkGate(mlir::MLIRContext &ctx, const TopkGateConfig &c) {
  if (c.experts < 1 || c.topk < 1 || c.topk > c.experts)
    throw std::invalid_argument("topk_gate: needs 1 <= K <= experts");
  const int64_t rows = c.rowsPerBlock(), width = c.width();
  KernelBuilder k(ctx, "topk_gate", c.numThreads());
  Dim tokens = k.dynamic("tokens");
  Tensor scores = k.input("scores", {tokens, c.experts}, DType::F32);
  Tensor out = k.output("topk_idx", {tokens, c.topk}, DType::I64);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * rows;
    // Columns past the experts read as zero and are never chosen (topkColumns' `valid`).
    Tile s = k.load(scores, {row, k.index(0)}, {rows, width});
    std::vector<Tile> best = topkColumns(rankKeys(s), c.topk, c.experts);
    for (int64_t r = 0; r < c.topk; ++r)
      k.store(out, {row, k.index(r)},
              map({best[r]}, DType::I64, [](const std::vector<Scalar> &v) { return v[0].sextToI64(); }));
  });
  return k.finish();
}

} // namespace tk::kernels::moe
