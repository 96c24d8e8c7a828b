//===- post.cpp - a layer's output back into n mixed streams (3.7) ---------===//
#include "kernels/mhc/stream_tiles.h"

namespace tk::kernels::mhc {

using namespace tk::dsl;

BuiltKernel buildPostKernel(mlir::MLIRContext &ctx, const StreamConfig &c) {
  const bool forward = c.op == StreamOp::PostFwd;
  const int64_t n = c.streams, h = c.hidden, rows = c.tileRows(), cols = c.tileCols(), align = streamRowAlignBytes(h),
                chunks = ceil_div(h, cols);
  KernelBuilder k(ctx, streamOpName(c.op), c.numThreads());
  configureStreamKernel(k, c);
  Dim tokens = k.dynamic("tokens");
  const std::vector<int64_t> tile = {rows, 1, cols};
  std::vector<Tensor> in;
  if (!forward)
    in.push_back(k.input("grad_out", {tokens, n, h}, DType::BF16, {}, align));
  Tensor x = k.input("x", {tokens, 1, h}, DType::BF16, {}, align);
  Tensor res = k.input("residual", {tokens, n, h}, DType::BF16, {}, align);
  Tensor post = k.input("post_mix", {tokens, n, 1}, DType::F32, {}, 4);
  Tensor comb = k.input("comb_mix", {tokens, n, n}, DType::F32, {}, 4);
  auto postOf = [&](const Index &t, int64_t o) { return widenedWeight(k, post, t, o, 0, c); };
  auto combOf = [&](const Index &t, int64_t i, int64_t o) { return widenedWeight(k, comb, t, i, o, c); };
  if (forward) {
    Tensor out = k.output("out", {tokens, n, h}, DType::BF16, {}, align);
    k.grid({ceil_div(tokens, rows), Dim(chunks)}, [&](const std::vector<Index> &b) {
      Index t = b[0] * rows, col = b[1] * cols;
      Tile y = k.load(x, {t, k.index(0), col}, tile).to(DType::F32);
      std::vector<Tile> r;
      for (int64_t i = 0; i < n; ++i)
        r.push_back(k.load(res, {t, k.index(i), col}, tile).to(DType::F32));
      for (int64_t o = 0; o < n; ++o) {
        Tile acc = postOf(t, o) * y;
        for (int64_t i = 0; i < n; ++i)
          acc = fmaTile(combOf(t, i, o), r[i], acc);
        k.store(out, {t, k.index(o), col}, acc.to(DType::BF16));
      }
    });
    return k.finish();
  }
  Tensor dout = in[0];
  Tensor dx = k.output("grad_x", {tokens, 1, h}, DType::BF16, {}, align);
  Tensor dres = k.output("grad_residual", {tokens, n, h}, DType::BF16, {}, align);
  Tensor dpost = k.output("grad_post", {tokens, n, 1}, DType::F32, {}, 4);
  Tensor dcomb = k.output("grad_comb", {tokens, n, n}, DType::F32, {}, 4);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index t = b[0] * rows, zero = k.index(0);
    // Carried per-thread partials: dpost[o] (n), then dcomb[i, o] (n x n, row-major).
    std::vector<Tile> init(n + n * n, k.full(tile, 0.0));
    // The chunks stream through shared memory, the next stages' copies in
    // flight while one is computed.
    Shared gs = k.shared({rows, n, cols}, DType::BF16), ys = k.shared(tile, DType::BF16),
           rs = k.shared({rows, n, cols}, DType::BF16);
    std::vector<Tile> sums =
        k.pipeline(zero, k.index(chunks), c.numStages(), init, [&](const Index &ci, const std::vector<Tile> &carried) {
          Index col = ci * cols;
          k.copy(dout, {t, zero, col}, gs);
          k.copy(x, {t, zero, col}, ys);
          k.copy(res, {t, zero, col}, rs);
          std::vector<Tile> g, r;
          for (int64_t o = 0; o < n; ++o)
            g.push_back(k.load(gs, {zero, k.index(o), zero}, tile).to(DType::F32));
          Tile y = k.load(ys, {zero, zero, zero}, tile).to(DType::F32);
          Tile dy = postOf(t, 0) * g[0];
          for (int64_t o = 1; o < n; ++o)
            dy = fmaTile(postOf(t, o), g[o], dy);
          k.store(dx, {t, zero, col}, dy.to(DType::BF16));
          std::vector<Tile> next;
          for (int64_t o = 0; o < n; ++o)
            next.push_back(carried[o] + y * g[o]);
          for (int64_t i = 0; i < n; ++i) {
            Tile ri = k.load(rs, {zero, k.index(i), zero}, tile).to(DType::F32);
            Tile d = combOf(t, i, 0) * g[0];
            for (int64_t o = 1; o < n; ++o)
              d = fmaTile(combOf(t, i, o), g[o], d);
            k.store(dres, {t, k.index(i), col}, d.to(DType::BF16));
            for (int64_t o = 0; o < n; ++o)
              next.push_back(carried[n + i * n + o] + ri * g[o]);
          }
          return next;
        });
    for (int64_t o = 0; o < n; ++o)
      k.store(dpost, {t, k.index(o), zero}, reduce_sum(sums[o], 2));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t o = 0; o < n; ++o)
        k.store(dcomb, {t, k.index(i), k.index(o)}, reduce_sum(sums[n + i * n + o], 2));
  });
  return k.finish();
}

} // namespace tk::kernels::mhc
