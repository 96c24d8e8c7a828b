//===- reduce_fused.cpp ---------------------------------------------------===//
#include "kernels/moe/reduce_fused.h"

#include <cmath>
#include <optional>

namespace tk::kernels::moe {

using namespace tk::dsl;

BuiltKernel buildReduceFused(mlir::MLIRContext &ctx, const ReduceFusedConfig &c) {
  if (c.hidden < 1 || c.topk < 1)
    throw std::invalid_argument("reduce_fused: needs H >= 1 and K >= 1");
  if (c.scale && c.out != DType::F8E4M3)
    throw std::invalid_argument("reduce_fused: a global scale only with an e4m3 output");
  const int64_t rows = c.rowsPerBlock(), cols = std::min(c.colsPerBlock(), c.hidden);
  KernelBuilder k(ctx, "reduce_fused", c.numThreads());
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
    std::optional<Tile> acc;
    for (int64_t s = 0; s < c.topk; ++s) {
      // Rows past the tokens read position 0: harmless, their results are not stored.
      Tile p = k.load(pos, {row, k.index(s)}, {rows, 1});
      // Whether the slot names a row of x (1 or 0), and its scalar: the weight, times x_sf of that row.
      Tile named = map({p}, DType::I32, [&](const std::vector<Scalar> &v) {
        Scalar yes = (v[0] >= v[0].constantI32(0)) & (v[0] < v[0].uniform(positions));
        return select(yes, v[0].constantI32(1), v[0].constantI32(0));
      });
      std::vector<Tile> in;
      if (weights)
        in.push_back(k.load(*weights, {row, k.index(s)}, {rows, 1}));
      if (xSf)
        in.push_back(k.gather(*xSf, p));
      auto one = [](const std::vector<Scalar> &v) { return v[0].constantF32(1); };
      auto product = [](const std::vector<Scalar> &v) { return v[0] * v[1]; };
      Tile scalar = in.empty() ? map({named}, DType::F32, one) : in.size() == 1 ? in[0] : map(in, DType::F32, product);
      // A slot naming no row (most of a rank's slots: other ranks' experts) is not read at all: one token per
      // CTA makes the branch uniform. Its clamped reads cost L2 bandwidth: on the H200, 33839 x 9 slots over
      // 4 of 256 experts took 816 us with them (TileKernels 245 us).
      Tile value = k.gatherRows(x, p, col, cols, /*skipOutside=*/true);
      if (c.in != DType::F32)
        value = value.to(DType::F32);
      std::vector<Tile> terms = {value, expand(scalar, 1, cols), expand(named, 1, cols)};
      if (acc)
        terms.push_back(*acc);
      // A slot that names no row leaves acc as it is: fmaf(0, 0, -0) would be +0.
      acc = map(terms, DType::F32, [&](const std::vector<Scalar> &v) {
        Scalar prev = terms.size() == 4 ? v[3] : v[0].constantF32(0);
        return select(v[2] != v[2].constantI32(0), fma(v[0], v[1], prev), prev);
      });
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
