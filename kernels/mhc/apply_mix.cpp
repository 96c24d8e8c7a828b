//===- apply_mix.cpp - n streams into one by per-token weights (3.5) -------===//
#include "kernels/mhc/mix_gate_tiles.h"
#include "kernels/mhc/stream_tiles.h"

namespace tk::kernels::mhc {

using namespace tk::dsl;

BuiltKernel buildApplyMixKernel(mlir::MLIRContext &ctx, const StreamConfig &c) {
  // mhc_pre_big_fuse's form computes pre from its logits (mix_gate_tiles.h) where the plain one loads it.
  const bool bigFuse = c.op == StreamOp::PreBigFuseApply, forward = c.op == StreamOp::ApplyMixFwd || bigFuse;
  const int64_t n = c.streams, h = c.hidden, rows = c.tileRows(), cols = c.tileCols(), align = streamRowAlignBytes(h),
                chunks = ceil_div(h, cols);
  KernelBuilder k(ctx, streamOpName(c.op) + std::string(c.accumulate ? "_acc" : ""), c.numThreads());
  applyDependentLaunch(k, c.pdl);
  configureStreamKernel(k, c);
  Dim tokens = k.dynamic("tokens");
  const std::vector<int64_t> tile = {rows, 1, cols};
  if (forward) {
    Tensor x = k.input("x", {tokens, n, h}, DType::BF16, {}, align);
    Tensor mix = bigFuse ? k.input("pre_logits", {tokens, n, 1}, DType::F32, {kDynamicStride, 1, 1}, 4)
                         : k.input("mix", {tokens, n, 1}, DType::F32, {}, 4);
    std::vector<Tensor> affine; // big fuse: scale (1, 1, 3), base_pre (1, n, 1)
    if (bigFuse)
      affine = {k.input("scale", {1, 1, 3}, DType::F32, {}, 4), k.input("base_pre", {1, n, 1}, DType::F32, {}, 4)};
    Tensor out = k.output("out", {tokens, 1, h}, DType::BF16, {}, align);
    std::vector<Uniform> preEps;
    if (bigFuse)
      preEps.push_back(k.scalarInput("pre_eps", DType::F32));
    auto weight = [&](const Index &t, int64_t m) {
      if (!bigFuse)
        return widenedWeight(k, mix, t, m, 0, c);
      Index zero = k.index(0);
      Affine a{expand(k.load(affine[0], {zero, zero, zero}, {1, 1, 1}), 0, rows),
               expand(k.load(affine[1], {zero, k.index(m), zero}, {1, 1, 1}), 0, rows)};
      Tile u = k.load(mix, {t, k.index(m), zero}, {rows, 1, 1});
      return expand(gateActivation(MixGroup::Pre, u, a, nullptr, &preEps[0]), 2, cols);
    };
    k.grid({ceil_div(tokens, rows), Dim(chunks)}, [&](const std::vector<Index> &b) {
      Index t = b[0] * rows, col = b[1] * cols;
      Tile acc = k.full(tile, 0.0);
      for (int64_t m = 0; m < n; ++m) { // separate statements: C++ leaves argument order open, and it orders the ops
        Tile w = weight(t, m), xm = k.load(x, {t, k.index(m), col}, tile).to(DType::F32);
        acc = fmaTile(w, xm, acc);
      }
      k.store(out, {t, k.index(0), col}, acc.to(DType::BF16));
    });
    return k.finish();
  }
  Tensor dout = k.input("grad_out", {tokens, 1, h}, DType::BF16, {}, align);
  Tensor x = k.input("x", {tokens, n, h}, DType::BF16, {}, align);
  Tensor mix = k.input("mix", {tokens, n, 1}, DType::F32, {}, 4);
  // With accumulate, grad_x is read (the buffer's previous gradient) and
  // written in place: each element by the thread that read it.
  Tensor dx = k.output("grad_x", {tokens, n, h}, DType::BF16, {}, align);
  Tensor dmix = k.output("grad_mix", {tokens, n, 1}, DType::F32, {}, 4);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index t = b[0] * rows, zero = k.index(0);
    // The chunks stream through shared memory, the next stages' copies in
    // flight while one is computed (the loads of a plain loop cannot pass
    // the stores into grad_x, which they may alias).
    Shared gs = k.shared(tile, DType::BF16), xs = k.shared({rows, n, cols}, DType::BF16),
           as = k.shared({rows, c.accumulate ? n : 1, c.accumulate ? cols : 1}, DType::BF16);
    std::vector<Tile> init(n, k.full(tile, 0.0));
    std::vector<Tile> sums =
        k.pipeline(zero, k.index(chunks), c.numStages(), init, [&](const Index &i, const std::vector<Tile> &carried) {
          Index col = i * cols;
          k.copy(dout, {t, zero, col}, gs);
          k.copy(x, {t, zero, col}, xs);
          if (c.accumulate)
            k.copy(dx, {t, zero, col}, as);
          Tile g = k.load(gs, {zero, zero, zero}, tile).to(DType::F32);
          std::vector<Tile> next;
          for (int64_t m = 0; m < n; ++m) {
            Index s = k.index(m);
            Tile acc = c.accumulate ? k.load(as, {zero, s, zero}, tile).to(DType::F32) : k.full(tile, 0.0);
            Tile d = fmaTile(widenedWeight(k, mix, t, m, 0, c), g, acc);
            k.store(dx, {t, s, col}, d.to(DType::BF16));
            next.push_back(carried[m] + g * k.load(xs, {zero, s, zero}, tile).to(DType::F32));
          }
          return next;
        });
    for (int64_t m = 0; m < n; ++m)
      k.store(dmix, {t, k.index(m), zero}, reduce_sum(sums[m], 2));
  });
  return k.finish();
}

} // namespace tk::kernels::mhc
