//===- mask_indices_by_tp.cpp ---------------------------------------------===//
#include "kernels/moe/mask_indices_by_tp.h"

namespace tk::kernels::moe {

using namespace tk::dsl;

BuiltKernel buildMaskIndices(mlir::MLIRContext &ctx, const MaskIndicesConfig &c) {
  if (c.dtype != DType::I32 && c.dtype != DType::I64)
    throw std::invalid_argument("mask_indices_by_tp: ids are i32 or i64");
  const int64_t tile = c.tileElements();
  KernelBuilder k(ctx, "mask_indices_by_tp", c.numThreads());
  Dim n = k.dynamic("n");
  Tensor ids = k.input("ids", {n}, c.dtype);
  Tensor out = k.output("masked", {n}, c.dtype);
  Uniform perRank = k.scalarInput("per_rank", c.dtype), tpRanks = k.scalarInput("tp_ranks", c.dtype),
          tpRank = k.scalarInput("tp_rank", c.dtype);
  k.grid({ceil_div(n, tile)}, [&](const std::vector<Index> &b) {
    Index origin = b[0] * tile;
    Tile v = k.load(ids, {origin}, {tile});
    k.store(out, {origin}, map({v}, c.dtype, [&](const std::vector<Scalar> &s) {
              const Scalar &id = s[0];
              Scalar r = id.uniform(perRank), tp = id.uniform(tpRanks), rank = id.uniform(tpRank);
              Scalar zero = c.dtype == DType::I32 ? id.constantI32(0) : id.constantI64(0);
              Scalar none = c.dtype == DType::I32 ? id.constantI32(-1) : id.constantI64(-1);
              // Negative ids are masked first, so truncating division is floor division here.
              Scalar epRank = divs(id, r);
              Scalar local = divs(epRank, tp) * r + rems(id, r);
              Scalar foreign = (id < zero) | (rems(epRank, tp) != rank);
              return select(foreign | (local < zero), none, local);
            }));
  });
  return k.finish();
}

} // namespace tk::kernels::moe
