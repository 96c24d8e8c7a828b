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

void topkGateReference(const float *scores, int64_t tokens, int64_t experts, int64_t k, int64_t *topkIdx) {
  std::vector<int64_t> order(experts);
  // Greater first, +0 == -0 (compared as values), NaN last; stable: ties keep the lower index.
  auto before = [](float a, float b) {
    if (std::isnan(a) || std::isnan(b))
      return !std::isnan(a) && std::isnan(b);
    return a > b;
  };
  for (int64_t t = 0; t < tokens; ++t) {
    const float *row = scores + t * experts;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return before(row[a], row[b]); });
    std::copy(order.begin(), order.begin() + k, topkIdx + t * k);
  }
}

} // namespace tk::kernels::moe
