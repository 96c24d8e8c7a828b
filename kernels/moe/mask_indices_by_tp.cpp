//===- mask_indices_by_tp.cpp ---------------------------------------------===//
#include "kernels/moe/mask_indices_by_tp.h"

#include <optional>

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
  std::optional<Uniform> rMagic, rShift, tpMagic, tpShift;
  if (c.usesMagic()) {
    rMagic = k.scalarInput("per_rank_magic", c.dtype), rShift = k.scalarInput("per_rank_shift", c.dtype);
    tpMagic = k.scalarInput("tp_ranks_magic", c.dtype), tpShift = k.scalarInput("tp_ranks_shift", c.dtype);
  }
  k.grid({ceil_div(n, tile)}, [&](const std::vector<Index> &b) {
    Index origin = b[0] * tile;
    Tile v = k.load(ids, {origin}, {tile});
    k.store(out, {origin}, map({v}, c.dtype, [&](const std::vector<Scalar> &s) {
              const Scalar &id = s[0];
              Scalar r = id.uniform(perRank), tp = id.uniform(tpRanks), rank = id.uniform(tpRank);
              Scalar zero = c.dtype == DType::I32 ? id.constantI32(0) : id.constantI64(0);
              Scalar none = c.dtype == DType::I32 ? id.constantI32(-1) : id.constantI64(-1);
              // Negative ids are masked first, so truncating division is floor division here. The quotients by
              // multiply and shift are exact for non-negative dividends, and a negative id's are never used.
              auto quotient = [&](const Scalar &n, const Scalar &d, const std::optional<Uniform> &magic,
                                  const std::optional<Uniform> &shift) {
                if (!magic)
                  return divs(n, d);
                Scalar m = n.uniform(*magic);
                return select(m == zero, n, shru(mulhiu(n, m), n.uniform(*shift)));
              };
              // n - q d is the truncating remainder either way (no second division).
              Scalar epRank = quotient(id, r, rMagic, rShift);
              Scalar inRank = id - epRank * r;
              Scalar epRankQ = quotient(epRank, tp, tpMagic, tpShift);
              Scalar local = epRankQ * r + inRank;
              Scalar foreign = (id < zero) | (epRank - epRankQ * tp != rank);
              return select(foreign | (local < zero), none, local);
            }));
  });
  return k.finish();
}

} // namespace tk::kernels::moe
