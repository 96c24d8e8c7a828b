//===- normalize_weight.cpp -----------------------------------------------===//
#include "kernels/moe/normalize_weight.h"

namespace tk::kernels::moe {

using namespace tk::dsl;

BuiltKernel buildNormalizeWeight(mlir::MLIRContext &ctx, const NormalizeWeightConfig &c) {
  if (c.topk < 1)
    throw std::invalid_argument("normalize_weight: needs K >= 1");
  const int64_t rows = c.rowsPerBlock();
  KernelBuilder k(ctx, "normalize_weight", rows);
  Dim tokens = k.dynamic("tokens");
  Tensor w = k.input("topk_weights", {tokens, c.topk}, DType::F32);
  Tensor den = k.output("denominator", {tokens, 1}, DType::F32);
  Tensor out = k.output("normalized_weights", {tokens, c.topk}, DType::F32);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * rows;
    // One column tile per slot: the sum runs over them in slot order.
    std::vector<Tile> slots;
    for (int64_t s = 0; s < c.topk; ++s)
      slots.push_back(k.load(w, {row, k.index(s)}, {rows, 1}));
    Tile d = map(slots, DType::F32, [](const std::vector<Scalar> &v) {
      Scalar acc = v[0].constantF32(kNormalizeWeightSeed);
      for (const Scalar &x : v)
        acc = acc + x;
      return acc;
    });
    k.store(den, {row, k.index(0)}, d);
    for (int64_t s = 0; s < c.topk; ++s)
      k.store(out, {row, k.index(s)}, slots[s] / d);
  });
  return k.finish();
}

} // namespace tk::kernels::moe
