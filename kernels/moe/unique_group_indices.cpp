//===- unique_group_indices.cpp -------------------------------------------===//
#include "kernels/moe/unique_group_indices.h"

namespace tk::kernels::moe {

using namespace tk::dsl;

BuiltKernel buildUniqueGroupIndices(mlir::MLIRContext &ctx, const UniqueGroupIndicesConfig &c) {
  if (c.topk < 1)
    throw std::invalid_argument("inplace_unique_group_indices: needs K >= 1");
  const int64_t rows = c.rowsPerBlock();
  KernelBuilder k(ctx, "inplace_unique_group_indices", rows);
  Dim n = k.dynamic("rows");
  Tensor ids = k.output("ids", {n, c.topk}, DType::I64); // in place: a thread reads its row, then writes it
  k.grid({ceil_div(n, rows)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * rows;
    std::vector<Tile> slots;
    for (int64_t s = 0; s < c.topk; ++s)
      slots.push_back(k.load(ids, {row, k.index(s)}, {rows, 1}));
    // Slot s is a repeat when a non-negative id equals one of the slots
    // before it: only repeats are written (-1), as few stores as the row has
    // repeats instead of one a slot.
    for (int64_t s = 1; s < c.topk; ++s) {
      std::vector<Tile> upTo(slots.begin(), slots.begin() + s + 1);
      Tile repeat = map(upTo, DType::I32, [s](const std::vector<Scalar> &v) {
        Scalar same = v[0] == v[s];
        for (int64_t j = 1; j < s; ++j)
          same = same | (v[j] == v[s]);
        Scalar one = v[s].constantI32(1), zero = v[s].constantI32(0);
        return select(same & (v[s] >= v[s].constantI64(0)), one, zero);
      });
      k.storeWhere(ids, {row, k.index(s)}, k.full({rows, 1}, -1, DType::I64), repeat);
    }
  });
  return k.finish();
}

} // namespace tk::kernels::moe
