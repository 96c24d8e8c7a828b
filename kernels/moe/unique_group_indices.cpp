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
    // Slot s is a repeat when a non-negative id equals one of the slots before it.
    for (int64_t s = 1; s < c.topk; ++s) {
      std::vector<Tile> upTo(slots.begin(), slots.begin() + s + 1);
      k.store(ids, {row, k.index(s)}, map(upTo, DType::I64, [s](const std::vector<Scalar> &v) {
                Scalar repeat = v[0] == v[s];
                for (int64_t j = 1; j < s; ++j)
                  repeat = repeat | (v[j] == v[s]);
                Scalar zero = v[s].constantI64(0);
                return select(repeat & (v[s] >= zero), v[s].constantI64(-1), v[s]);
              }));
    }
  });
  return k.finish();
}

} // namespace tk::kernels::moe
