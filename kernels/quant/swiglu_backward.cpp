//===- swiglu_backward.cpp - the kernels, in the DSL, and the reference ---===//
#include "kernels/quant/swiglu_backward.h"
#include "kernels/quant/scale_rule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

using namespace tk::dsl;

namespace tk::kernels::quant {

namespace {

/// The forward quantities of one element (quant.md 4.18 steps 1-3) from
/// (xv, yv) after dequantization.
struct Forward {
  Scalar x, y;                 ///< clamped
  std::optional<Scalar> cx, cy; ///< x clamped; y clamped (either side)
  Scalar s, act; ///< sigmoid(x), silu(x) * y
};

Forward forward(Scalar xv, Scalar yv, std::optional<float> clamp) {
  Forward f{xv, yv, {}, {}, xv, xv};
  if (clamp) {
    Scalar c = xv.constantF32(*clamp), negC = xv.constantF32(-*clamp);
    f.cx = xv > c;
    Scalar above = yv > c, below = yv < negC;
    f.cy = above | below;
    f.x = select(*f.cx, c, xv);
    f.y = select(above, c, select(below, negC, yv));
  }
  f.act = silu(f.x) * f.y;
  f.s = sigmoid(f.x);
  return f;
}

} // namespace

BuiltKernel buildSwigluBackward(mlir::MLIRContext &ctx, const SwigluBackwardConfig &c) {
  if (std::string error = c.tileError(); !error.empty())
    throw std::invalid_argument("swiglu backward: " + error);
  const int64_t h = c.hidden, g = c.group, hg = h / g, cols = c.chunk(), chunks = c.numChunks();
  KernelBuilder k(ctx, "swiglu_backward_and_per_token_cast", c.numThreads());
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  Dim rows = k.dynamic("num_rows");
  Tensor xq = k.input("x", {rows, 2 * h}, DType::F8E4M3, {2 * h, 1}, c.xAlignBytes);
  Tensor xs = k.input("x_sf", {rows, 2 * hg}, DType::F32, {2 * hg, 1}, 4);
  Tensor gradOut = k.input("grad_out", {rows, h}, DType::BF16, {h, 1}, c.gradAlignBytes);
  Tensor topk = k.input("pos_to_token_topk", {rows, 1}, DType::I32, {1, 1}, 4);
  Tensor weight = k.input("weight", {k.dynamic("num_weights")}, DType::F32, {1}, 4);
  Tensor out = k.output("out", {rows, h}, DType::BF16, {}, c.outAlignBytes);
  Tensor gradFp8 = k.output("x_grad_fp8", {rows, 2 * h}, DType::F8E4M3, {}, c.outAlignBytes);
  Tensor gradSf = k.output("x_grad_sf", {rows, 2 * hg}, DType::F32, {2 * hg, 1}, 4);
  Tensor grad = k.output("x_grad", {rows, 2 * h}, DType::BF16, {}, c.outAlignBytes);
  Tensor rowDots = k.output("row_dots", {rows, chunks}, DType::F32, {chunks, 1}, 4);

  // Row `row`, chunk `chunk`: columns chunk * cols ... of both halves, from
  // `loadQ(half)` (the e4m3 codes) and `loadGo()`; the chunk's share of the
  // row's dot product goes to row_dots[row, chunk].
  auto castChunk = [&](const Index &row, const Index &chunk, const std::function<Tile(int64_t half)> &loadQ,
                       const std::function<Tile()> &loadGo) {
    Index zero = k.index(0), col = chunk * cols, group = chunk * (cols / g);
    auto dequantized = [&](int64_t half) { // fl(dec(xq) * xs), one scale per g values
      return loadQ(half).to(DType::F32) * expand(k.load(xs, {row, group + half * hg}, {1, cols / g}), 1, g);
    };
    Tile xv = dequantized(0), yv = dequantized(1);
    Tile go = loadGo().to(DType::F32);
    Tile idx = k.load(topk, {row, zero}, {1, 1});
    Tile w = expand(k.gather(weight, idx), 1, cols); // 0 for a padding row
    const std::optional<float> clamp = c.clamp;
    auto elementwise = [&](const std::function<Scalar(const Forward &, Scalar go, Scalar w)> &fn) {
      return map({xv, yv, go, w}, DType::F32,
                 [&](const std::vector<Scalar> &s) { return fn(forward(s[0], s[1], clamp), s[2], s[3]); });
    };
    auto gws = [](const Forward &f, Scalar go, Scalar w) { return go * w * f.s; };
    Tile dx = elementwise([&](const Forward &f, Scalar go, Scalar w) {
      Scalar one = go.constantF32(1.0);
      Scalar v = gws(f, go, w) * f.y * fma(f.x, one - f.s, one);
      return f.cx ? select(*f.cx, go.constantF32(0.0), v) : v;
    });
    Tile dy = elementwise([&](const Forward &f, Scalar go, Scalar w) {
      Scalar v = gws(f, go, w) * f.x;
      return f.cy ? select(*f.cy, go.constantF32(0.0), v) : v;
    });
    k.store(out, {row, col}, elementwise([](const Forward &f, Scalar, Scalar w) { return f.act * w; }).to(DType::BF16));
    k.store(rowDots, {row, chunk},
            reduce_sum(elementwise([](const Forward &f, Scalar go, Scalar) { return go * f.act; }), 1));
    // x_grad in bf16 and per token in e4m3, from the fp32 gradients.
    for (int64_t half = 0; half < 2; ++half) {
      const Tile &d = half ? dy : dx;
      k.store(grad, {row, col + half * h}, d.to(DType::BF16));
      auto [scale, inv] = scaleRule(reduce_absmax(d, 1, g), Format::E4M3, c.roundSf);
      k.store(gradSf, {row, group + half * hg}, scale);
      k.store(gradFp8, {row, col + half * h}, (d * expand(inv, 1, g)).to(DType::F8E4M3));
    }
  };

  if (c.stages() > 0) {
    // Block (row group, chunk) walks rowsPerBlock rows down one chunk; their
    // inputs arrive in shared memory stages() - 1 rows ahead (cp.async).
    const int64_t n = c.rowsPerBlock();
    k.grid({ceil_div(rows, n), Dim(chunks)}, [&](const std::vector<Index> &b) {
      Index col = b[1] * cols, zero = k.index(0);
      Shared qx = k.shared({1, cols}, DType::F8E4M3), qy = k.shared({1, cols}, DType::F8E4M3);
      Shared gos = k.shared({1, cols}, DType::BF16);
      k.pipeline(zero, k.index(n), c.stages(), [&](const Index &i) {
        Index row = b[0] * n + i;
        k.copy(xq, {row, col}, qx);
        k.copy(xq, {row, col + h}, qy);
        k.copy(gradOut, {row, col}, gos);
        castChunk(row, b[1], [&](int64_t half) { return k.load(half ? qy : qx, {zero, zero}, {1, cols}); },
                  [&] { return k.load(gos, {zero, zero}, {1, cols}); });
      });
    });
    return k.finish();
  }
  k.grid({rows, Dim(chunks)}, [&](const std::vector<Index> &b) {
    Index row = b[0], col = b[1] * cols;
    castChunk(row, b[1], [&](int64_t half) { return k.load(xq, {row, col + half * h}, {1, cols}); },
              [&] { return k.load(gradOut, {row, col}, {1, cols}); });
  });
  return k.finish();
}

static int64_t powerOfTwoAtLeast(int64_t n) {
  int64_t p = 1;
  while (p < n)
    p *= 2;
  return p;
}

BuiltKernel buildWeightGradFromRowDots(mlir::MLIRContext &ctx, const WeightGradConfig &config) {
  const int64_t chunks = config.chunks;
  constexpr int64_t bm = 256;
  const int64_t width = powerOfTwoAtLeast(chunks); // columns past `chunks` read as zero
  KernelBuilder k(ctx, "swiglu_backward_weight_grad", /*threads=*/128);
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  Dim slots = k.dynamic("num_slots");
  Tensor ttp = k.input("token_topk_to_pos", {slots, 1}, DType::I32, {1, 1}, 4);
  Tensor rowDots = k.input("row_dots", {k.dynamic("num_rows"), chunks}, DType::F32, {chunks, 1}, 4);
  Tensor weightGrad = k.output("weight_grad", {slots, 1}, DType::F32, {1, 1}, 4);
  k.grid({ceil_div(slots, bm)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * bm, zero = k.index(0);
    // Slot s: the dot product of row token_topk_to_pos[s], summed over its
    // chunks in one fixed order; zero for -1 (an unrouted slot) and for a row
    // past the end (every slot when there are no rows).
    Tile rows = k.load(ttp, {at, zero}, {bm, 1});
    k.store(weightGrad, {at, zero}, reduce_sum(k.gatherRows(rowDots, rows, zero, width), 1));
  });
  return k.finish();
}

} // namespace tk::kernels::quant
