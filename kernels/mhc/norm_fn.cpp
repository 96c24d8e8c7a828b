//===- norm_fn.cpp --------------------------------------------------------===//
#include "kernels/mhc/norm_fn.h"

#include <functional>
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

/// One step of the forward's K walk: the chunk's products added to the carried product by the tensor core (in
/// registers: the dot gives x's tile its fragment layout, over the sum of squares' wish) and its sums of squares to
/// the carried sums (which stay in the reduction's layout, each row's sum held by the lanes that reduced it: no
/// exchange through shared memory per chunk; the loop's users move them once).
std::vector<Tile> forwardStep(const Tile &xt, const std::function<Tile()> &weightsTile,
                              const std::vector<Tile> &carried, DotEngine engine) {
  Tile xf = xt.to(DType::F32);
  Tile ss = carried[1] + reduce_sum(xf * xf, 1);
  return {dot(xt, transpose(weightsTile()), carried[0], engine), ss};
}

/// rsqrt(ss / G + eps) per token, of a [rows, 1] tile of sums of squares.
Tile rmsFactor(const Tile &ss, const Uniform &eps, int64_t g) {
  return map({ss}, DType::F32, [&](const std::vector<Scalar> &v) {
    return rsqrt(v[0] / v[0].constantF32(double(g)) + v[0].uniform(eps));
  });
}

/// The forward's outputs (mix, mul, ss), written from the product m and the sums of squares s of `rows` tokens.
struct ForwardOutputs {
  Tensor mix, mul, ss;
  ForwardOutputs(KernelBuilder &k, const Dim &tokens, const Dim &mixes)
      : mix(k.output("mix", {tokens, mixes}, DType::F32, {}, 4)),
        mul(k.output("mul", {tokens, mixes}, DType::F32, {}, 4)), ss(k.output("ss", {tokens, 1}, DType::F32, {}, 4)) {}
  void store(KernelBuilder &k, const Index &at, const Tile &m, const Tile &s, const Uniform &eps, int64_t g) const {
    Tile r = rmsFactor(s, eps, g);
    Index zero = k.index(0);
    k.store(mul, {at, zero}, m);
    k.store(mix, {at, zero}, m * expand(r, 1, kPad));
    k.store(ss, {at, zero}, s);
  }
};

BuiltKernel buildForward(mlir::MLIRContext &ctx, const NormFnConfig &c) {
  const int64_t g = c.width, rows = c.numTokens(), cols = c.numChunk(), splits = c.numSplits();
  const int64_t perSplit = g / cols / splits;
  const DotEngine engine = c.onWarpgroups() ? DotEngine::Warpgroup : DotEngine::Warp;
  KernelBuilder k(ctx, "mhc_pre_norm_fn_fwd", c.numThreads());
  k.minBlocksPerSm(c.numBlocks());
  applyDependentLaunch(k, c.dependentLaunch());
  Dim tokens = k.dynamic("tokens"), mixes = k.dynamic("mixes");
  Tensor x = k.input("residual", {tokens, g}, DType::BF16, {}, 16);
  Tensor fn = k.input("fn", {mixes, g}, DType::F32, {}, 16);
  std::vector<Tensor> w;
  if (c.weighted)
    w.push_back(k.input("norm_weight", {1, g}, DType::F32, {}, 16));
  // Split K: each CTA of the grid's second dimension writes its share's sums, reduced by the Finish kernel.
  std::vector<ForwardOutputs> outs;
  std::vector<Tensor> parts;
  if (splits == 1)
    outs.emplace_back(k, tokens, mixes);
  else
    parts = {k.output("mul_parts", {tokens, splits * kPad}, DType::F32, {}, 16),
             k.output("ss_parts", {tokens, splits}, DType::F32, {}, 4)};
  std::vector<Uniform> eps;
  if (splits == 1)
    eps.push_back(k.scalarInput("eps", DType::F32));
  std::vector<Dim> grid = {ceil_div(tokens, rows)};
  if (splits > 1)
    grid.push_back(Dim(splits));
  k.grid(grid, [&](const std::vector<Index> &b) {
    Index at = b[0] * rows, zero = k.index(0);
    Index lo = splits == 1 ? zero : b[1] * perSplit, hi = splits == 1 ? k.index(perSplit) : lo + perSplit;
    const Tensor *wp = w.empty() ? nullptr : &w[0];
    std::vector<Tile> init = {k.full({rows, kPad}, 0.0), k.full({rows, 1}, 0.0)};
    // Tokens past T read as zero; their stores are dropped.
    std::vector<Tile> acc;
    if (c.numStages() == 1) {
      acc = k.loop(lo, hi, init, [&](const Index &i, const std::vector<Tile> &carried) -> std::vector<Tile> {
        Index col = i * cols;
        Tile xt = k.load(x, {at, col}, {rows, cols});
        return forwardStep(
            xt, [&] { return weights(k, fn, wp, col, cols); }, carried, engine);
      });
    } else {
      // The next stages' chunks copied into shared memory while one is multiplied.
      Shared xs = k.shared({rows, cols}, DType::BF16), fs = k.shared({kPad, cols}, DType::F32);
      std::vector<Shared> ws;
      if (wp)
        ws.push_back(k.shared({1, cols}, DType::F32));
      acc = k.pipeline(lo, hi, c.numStages(), init, [&](const Index &i, const std::vector<Tile> &carried) {
        Index col = i * cols;
        k.copy(x, {at, col}, xs);
        k.copy(fn, {zero, col}, fs);
        if (wp)
          k.copy(*wp, {zero, col}, ws[0]);
        Tile xt = k.load(xs, {zero, zero}, {rows, cols});
        return forwardStep(
            xt,
            [&] {
              Tile wt = k.load(fs, {zero, zero}, {kPad, cols});
              return wp ? wt * expand(k.load(ws[0], {zero, zero}, {1, cols}), 0, kPad) : wt;
            },
            carried, engine);
      });
    }
    if (splits > 1) {
      k.store(parts[0], {at, b[1] * kPad}, acc[0]);
      k.store(parts[1], {at, b[1]}, relayout(acc[1]));
      return;
    }
    // From the product's fragment layout and the reduction's, once.
    outs[0].store(k, at, relayout(acc[0]), relayout(acc[1]), eps[0], g);
  });
  return k.finish();
}

/// The split forward's second kernel: per token, the splits' sums added in order s = 0, 1, ... (spec 3.2's
/// split-K partials), then r, mix, mul and ss as the one-kernel forward writes them.
BuiltKernel buildFinish(mlir::MLIRContext &ctx, const NormFnConfig &c) {
  const int64_t g = c.width, rows = c.numTokens(), splits = c.numSplits();
  KernelBuilder k(ctx, "mhc_pre_norm_fn_fwd_finish", c.numThreads());
  applyDependentLaunch(k, c.dependentLaunch());
  Dim tokens = k.dynamic("tokens"), mixes = k.dynamic("mixes");
  Tensor mulParts = k.input("mul_parts", {tokens, splits * kPad}, DType::F32, {}, 16);
  Tensor ssParts = k.input("ss_parts", {tokens, splits}, DType::F32, {}, 4);
  ForwardOutputs outs(k, tokens, mixes);
  Uniform eps = k.scalarInput("eps", DType::F32);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * rows, zero = k.index(0);
    Tile m = k.load(mulParts, {at, zero}, {rows, kPad}), s = k.load(ssParts, {at, zero}, {rows, 1});
    for (int64_t p = 1; p < splits; ++p) { // separate statements: the order of the sums is the spec's
      m = m + k.load(mulParts, {at, k.index(p * kPad)}, {rows, kPad});
      s = s + k.load(ssParts, {at, k.index(p)}, {rows, 1});
    }
    outs.store(k, at, m, s, eps, g);
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
    Tile r = rmsFactor(s, eps, g);
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
  case NormFnStage::Finish:
    return buildFinish(ctx, c);
  case NormFnStage::Norm:
    return buildNorm(ctx, c);
  case NormFnStage::Slab:
    break;
  }
  return buildSlab(ctx, c);
}

} // namespace tk::kernels::mhc
