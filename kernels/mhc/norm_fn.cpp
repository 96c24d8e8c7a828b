//===- norm_fn.cpp --------------------------------------------------------===//
#include "kernels/mhc/norm_fn.h"

#include <stdexcept>

namespace tk::kernels::mhc {

using namespace tk::dsl;

namespace {

constexpr int64_t kPad = kNormFnMaxMixes;

/// fn's chunk [32, cols] at column `col` (rows past n3 zero), times the norm weight when folded.
Tile weights(KernelBuilder &k, const Tensor &fn, const Tensor *w, const Index &col, int64_t cols) {
  Index zero = k.index(0);
  Tile t = k.load(fn, {zero, col}, {kPad, cols});
  return w ? t * expand(k.load(*w, {zero, col}, {1, cols}), 0, kPad) : t;
}

BuiltKernel buildForward(mlir::MLIRContext &ctx, const NormFnConfig &c) {
  const int64_t g = c.width, rows = c.numTokens(), cols = c.numChunk();
  KernelBuilder k(ctx, "mhc_pre_norm_fn_fwd", c.numThreads());
  Dim tokens = k.dynamic("tokens"), mixes = k.dynamic("mixes");
  Tensor x = k.input("residual", {tokens, g}, DType::BF16, {}, 16);
  Tensor fn = k.input("fn", {mixes, g}, DType::F32, {}, 16);
  std::vector<Tensor> w;
  if (c.weighted)
    w.push_back(k.input("norm_weight", {1, g}, DType::F32, {}, 16));
  Tensor mix = k.output("mix", {tokens, mixes}, DType::F32, {}, 4);
  Tensor mul = k.output("mul", {tokens, mixes}, DType::F32, {}, 4);
  Tensor ss = k.output("ss", {tokens, 1}, DType::F32, {}, 4);
  Uniform eps = k.scalarInput("eps", DType::F32);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * rows, zero = k.index(0);
    // Tokens past T read as zero; their stores are dropped.
    std::vector<Tile> acc = k.loop(zero, k.index(g / cols), {k.full({rows, kPad}, 0.0), k.full({rows, 1}, 0.0)},
                                   [&](const Index &i, const std::vector<Tile> &carried) -> std::vector<Tile> {
                                     Index col = i * cols;
                                     Tile xt = k.load(x, {at, col}, {rows, cols});
                                     Tile xf = xt.to(DType::F32);
                                     Tile prod =
                                         dot(xt, transpose(weights(k, fn, w.empty() ? nullptr : &w[0], col, cols)));
                                     return {carried[0] + prod, carried[1] + relayout(reduce_sum(xf * xf, 1))};
                                   });
    Tile r = map({acc[1]}, DType::F32, [&](const std::vector<Scalar> &v) {
      return rsqrt(v[0] / v[0].constantF32(double(g)) + v[0].uniform(eps));
    });
    k.store(mul, {at, zero}, acc[0]);
    k.store(mix, {at, zero}, acc[0] * expand(r, 1, kPad));
    k.store(ss, {at, zero}, acc[1]);
  });
  return k.finish();
}

BuiltKernel buildNorm(mlir::MLIRContext &ctx, const NormFnConfig &c) {
  const int64_t g = c.width, rows = c.numTokens();
  KernelBuilder k(ctx, "mhc_pre_norm_fn_bwd_norm", c.numThreads());
  Dim tokens = k.dynamic("tokens"), mixes = k.dynamic("mixes");
  Tensor dmix = k.input("grad_mix", {tokens, mixes}, DType::F32, {}, 4);
  Tensor mul = k.input("mul", {tokens, mixes}, DType::F32, {}, 4);
  Tensor ss = k.input("ss", {tokens, 1}, DType::F32, {}, 4);
  Tensor dmul = k.output("dmul", {tokens, kPad}, DType::F32, {}, 16);
  Tensor dmulT = k.output("dmul_t", {kPad, tokens}, DType::F32, {}, 16);
  Tensor dss = k.output("dss", {tokens, 1}, DType::F32, {}, 4);
  Uniform eps = k.scalarInput("eps", DType::F32);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * rows, zero = k.index(0);
    Tile gm = k.load(dmix, {at, zero}, {rows, kPad}), m = k.load(mul, {at, zero}, {rows, kPad});
    Tile s = k.load(ss, {at, zero}, {rows, 1});
    Tile r = map({s}, DType::F32, [&](const std::vector<Scalar> &v) {
      return rsqrt(v[0] / v[0].constantF32(double(g)) + v[0].uniform(eps));
    });
    Tile dr = reduce_sum(gm * m, 1);
    Tile d = map({dr, r, s}, DType::F32, [&](const std::vector<Scalar> &v) {
      return v[0].constantF32(-0.5) * v[0] * v[1] / (v[2] + v[0].uniform(eps) * v[0].constantF32(double(g)));
    });
    Tile dm = gm * expand(r, 1, kPad);
    k.store(dmul, {at, zero}, dm);
    // Transposed here, where `rows` tokens fill the threads, for the slab kernel's dmul^T x.
    k.store(dmulT, {zero, at}, transpose(relayout(dm)));
    k.store(dss, {at, zero}, d);
  });
  return k.finish();
}

BuiltKernel buildSlab(mlir::MLIRContext &ctx, const NormFnConfig &c) {
  const int64_t g = c.width, rows = c.numTokens(), cols = c.numChunk();
  KernelBuilder k(ctx, "mhc_pre_norm_fn_bwd", c.numThreads());
  Dim tokens = k.dynamic("tokens"), mixes = k.dynamic("mixes");
  Tensor x = k.input("residual", {tokens, g}, DType::BF16, {}, 16);
  Tensor dmul = k.input("dmul", {tokens, kPad}, DType::F32, {}, 16);
  Tensor dmulT = k.input("dmul_t", {kPad, tokens}, DType::F32, {}, 16);
  Tensor dss = k.input("dss", {tokens, 1}, DType::F32, {}, 4);
  Tensor fn = k.input("fn", {mixes, g}, DType::F32, {}, 16);
  std::vector<Tensor> w;
  if (c.weighted)
    w.push_back(k.input("norm_weight", {1, g}, DType::F32, {}, 16));
  Tensor gres = k.output("grad_residual", {tokens, g}, DType::BF16, {}, 16);
  Tensor gfn = k.output("grad_fn", {mixes, g}, DType::F32, {}, 16);
  std::vector<Tensor> gw;
  if (c.weighted)
    gw.push_back(k.output("grad_norm_weight", {1, g}, DType::F32, {}, 16));
  k.grid({Dim(g / cols)}, [&](const std::vector<Index> &b) {
    Index col = b[0] * cols, zero = k.index(0);
    Tile wt = weights(k, fn, w.empty() ? nullptr : &w[0], col, cols);
    // Every token in blocks of `rows`, in order: dW's sums in a fixed order.
    std::vector<Tile> dw = k.loop(zero, k.index(ceil_div(tokens, rows)), {k.full({kPad, cols}, 0.0)},
                                  [&](const Index &i, const std::vector<Tile> &carried) -> std::vector<Tile> {
                                    Index at = i * rows;
                                    Tile xt = k.load(x, {at, col}, {rows, cols});
                                    Tile dm = k.load(dmul, {at, zero}, {rows, kPad});
                                    Tile dsum = dot(dm, wt);
                                    if (c.accumulate)
                                      dsum = k.load(gres, {at, col}, {rows, cols}).to(DType::F32) + dsum;
                                    Tile ds = expand(k.load(dss, {at, zero}, {rows, 1}), 1, cols);
                                    k.store(gres, {at, col}, (dsum + 2.0 * xt.to(DType::F32) * ds).to(DType::BF16));
                                    return {carried[0] +
                                            dot(k.load(dmulT, {zero, at}, {kPad, rows}), xt.to(DType::F32))};
                                  });
    if (!c.weighted) {
      k.store(gfn, {zero, col}, dw[0]);
      return;
    }
    Tile raw = k.load(fn, {zero, col}, {kPad, cols});
    k.store(gfn, {zero, col}, dw[0] * expand(k.load(w[0], {zero, col}, {1, cols}), 0, kPad));
    k.store(gw[0], {zero, col}, relayout(reduce_sum(dw[0] * raw, 0)));
  });
  return k.finish();
}

} // namespace

BuiltKernel buildNormFn(mlir::MLIRContext &ctx, const NormFnConfig &c) {
  if (c.width < 1 || c.width % c.numChunk() != 0)
    throw std::invalid_argument("mhc_pre_norm_fn: G = " + std::to_string(c.width) + " is not a multiple of the " +
                                std::to_string(c.numChunk()) + "-column chunk");
  switch (c.stage) {
  case NormFnStage::Forward:
    return buildForward(ctx, c);
  case NormFnStage::Norm:
    return buildNorm(ctx, c);
  case NormFnStage::Slab:
    break;
  }
  return buildSlab(ctx, c);
}

} // namespace tk::kernels::mhc
