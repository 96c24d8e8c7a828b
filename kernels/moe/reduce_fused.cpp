//===- reduce_fused.cpp ---------------------------------------------------===//
#include "kernels/moe/reduce_fused.h"
#include "kernels/common/branch_flag.h"

#include <cmath>
#include <optional>
#include <utility>

namespace tk::kernels::moe {

using namespace tk::dsl;

BuiltKernel buildReduceFused(mlir::MLIRContext &ctx, const ReduceFusedConfig &c) {
  if (c.hidden < 1 || c.topk < 1)
    throw std::invalid_argument("reduce_fused: needs H >= 1 and K >= 1");
  if (c.scale && c.out != DType::F8E4M3)
    throw std::invalid_argument("reduce_fused: a global scale only with an e4m3 output");
  const int64_t rows = c.rowsPerBlock(), cols = std::min(c.colsPerBlock(), c.hidden);
  KernelBuilder k(ctx, "reduce_fused", c.numThreads());
  if (c.blocks)
    k.minBlocksPerSm(c.blocks);
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  Dim m = k.dynamic("positions"), n = k.dynamic("tokens");
  Tensor x = k.input("x", {m, c.hidden}, c.in, {}, c.alignBytes);
  std::optional<Tensor> xSf, weights, sf;
  if (c.rowScale)
    xSf = k.input("x_sf", {m}, DType::F32);
  if (c.weights)
    weights = k.input("topk_weights", {n, c.topk}, DType::F32);
  Tensor pos = k.input("token_topk_to_pos", {n, c.topk}, DType::I32);
  if (c.scale)
    sf = k.input("sf", {1}, DType::F32);
  Tensor out = k.output("out", {n, c.hidden}, c.out, {}, c.alignBytes);
  // M, the positions a slot may name: x's rows, or 0 when x is a stand-in row
  // (no expert rows at all).
  Uniform positions = k.scalarInput("positions", DType::I32);
  k.grid({ceil_div(n, rows), Dim(ceil_div(c.hidden, cols))}, [&](const std::vector<Index> &b) {
    Index row = b[0] * rows, col = b[1] * cols;
    // Slot s's scalar: the weight, times x_sf of its row; -0 for a slot that names no row of x. Its row then reads
    // as +0, and fmaf(+0, -0, acc) = acc + -0 = acc for every acc (-0 and NaN included): the slot adds nothing
    // without a per-element select (on the H200 the selects and compares made K = 8 slots cost as much as the
    // bytes they move).
    auto namesRow = [&](const Scalar &p) { return (p >= p.constantI32(0)) & (p < p.uniform(positions)); };
    auto slot = [&](const Index &s) -> std::pair<Tile, Tile> { // its positions and scalars
      // Rows past the tokens read position 0: harmless, their results are not stored.
      Tile p = k.load(pos, {row, s}, {rows, 1});
      std::vector<Tile> in = {p};
      if (weights)
        in.push_back(k.load(*weights, {row, s}, {rows, 1}));
      if (xSf)
        in.push_back(k.gather(*xSf, p));
      return {p, map(in, DType::F32, [&](const std::vector<Scalar> &v) {
                Scalar named = namesRow(v[0]);
                Scalar product = v.size() == 1 ? v[0].constantF32(1) : v.size() == 2 ? v[1] : v[1] * v[2];
                return select(named, product, v[0].constantF32(-0.0));
              })};
    };
    // A slot naming no row (most of a rank's slots: other ranks' experts) is not read at all: one token per CTA
    // makes the branch uniform. Its clamped reads cost L2 bandwidth: on the H200, 33839 x 9 slots over 4 of 256
    // experts took 816 us with them (TileKernels 245 us).
    auto slotRow = [&](const Tile &p) { return k.gatherRows(x, p, col, cols, /*skipOutside=*/true); };
    auto accumulate = [&](const Tile &value, const Tile &scalar, const std::optional<Tile> &acc) {
      // Widened here, at its use: the rows wait in x's (narrower) type.
      Tile widened = c.in != DType::F32 ? value.to(DType::F32) : value;
      std::vector<Tile> terms = {widened, expand(scalar, 1, cols)};
      if (acc)
        terms.push_back(*acc);
      return map(terms, DType::F32, [&](const std::vector<Scalar> &v) {
        return fma(v[0], v[1], terms.size() == 3 ? v[2] : v[0].constantF32(0));
      });
    };
    std::optional<Tile> acc;
    if (c.slotsRolled()) {
      // One slot's row in registers at a time: a loop the compiler keeps rolled, so that a thread's registers
      // hold its accumulators and one row (more tokens per SM in flight) instead of every slot's row.
      acc = k.loop(k.index(0), k.index(c.topk), {k.full({rows, cols}, 0.0)},
                   [&](const Index &s, const std::vector<Tile> &carried) -> std::vector<Tile> {
                     // Named, not a structured binding: the branch's lambda captures them (C++17).
                     const std::pair<Tile, Tile> named = slot(s);
                     const Tile &p = named.first, &scalar = named.second;
                     if (!c.skipsEmptySlots())
                       return {accumulate(slotRow(p), scalar, carried[0])};
                     // A slot naming no row skips its conversions and FMAs too, not only its loads: the block
                     // branches over it together (one token per CTA). Inside, the row is one of x's: no check.
                     return k.when(branchFlag(p, namesRow), carried,
                                   [&](const std::vector<Tile> &in) -> std::vector<Tile> {
                                     return {accumulate(k.gatherRows(x, p, col, cols), scalar, in[0])};
                                   });
                   })[0];
    } else {
      // Every slot's row is gathered before the FMAs (one slot at a time measured the same on the H200, and
      // LLVM hoists the slots' scalar loads either way).
      std::vector<Tile> scalar, value;
      for (int64_t s = 0; s < c.topk; ++s) {
        auto [p, product] = slot(k.index(s));
        scalar.push_back(product);
        value.push_back(slotRow(p));
      }
      for (int64_t s = 0; s < c.topk; ++s)
        acc = accumulate(value[s], scalar[s], acc);
    }
    Tile result = *acc;
    if (sf) { // one global scale, read by every row
      Tile first = map({k.load(pos, {row, k.index(0)}, {rows, 1})}, DType::I32,
                       [](const std::vector<Scalar> &v) { return v[0].constantI32(0); });
      Tile scale = expand(k.gather(*sf, first), 1, cols);
      result = map({result, scale}, DType::F32, [](const std::vector<Scalar> &v) { return v[0] * v[1]; });
    }
    k.store(out, {row, col}, c.out == DType::F32 ? result : result.to(c.out));
  });
  return k.finish();
}

} // namespace tk::kernels::moe
