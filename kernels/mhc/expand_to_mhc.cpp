//===- expand_to_mhc.cpp - one stream into n and back (3.1) ----------------===//
#include "kernels/mhc/stream_tiles.h"

namespace tk::kernels::mhc {

using namespace tk::dsl;

BuiltKernel buildExpandKernel(mlir::MLIRContext &ctx, const StreamConfig &c) {
  const bool forward = c.op == StreamOp::ExpandFwd;
  const int64_t n = c.streams, h = c.hidden, rows = c.tileRows(), cols = c.tileCols(), align = streamRowAlignBytes(h);
  KernelBuilder k(ctx, streamOpName(c.op), c.numThreads());
  configureStreamKernel(k, c);
  Dim tokens = k.dynamic("tokens");
  // (T, 1, H) and (T, n, H): a tile of one stream is [rows, 1, cols] in both.
  // Inputs first, then outputs (the signature's order).
  Tensor in = forward ? k.input("hidden", {tokens, 1, h}, DType::BF16, {}, align)
                      : k.input("grad_out", {tokens, n, h}, DType::BF16, {}, align);
  Tensor out = forward ? k.output("out", {tokens, n, h}, DType::BF16, {}, align)
                       : k.output("grad_hidden", {tokens, 1, h}, DType::BF16, {}, align);
  const Tensor &one = forward ? in : out, &many = forward ? out : in;
  const std::vector<int64_t> tile = {rows, 1, cols};
  k.grid({ceil_div(tokens, rows), Dim(ceil_div(h, cols))}, [&](const std::vector<Index> &b) {
    Index t = b[0] * rows, col = b[1] * cols, zero = k.index(0);
    if (forward) {
      Tile x = k.load(one, {t, zero, col}, tile);
      for (int64_t m = 0; m < n; ++m)
        k.store(many, {t, k.index(m), col}, x);
      return;
    }
    Tile acc = k.full(tile, 0.0); // from +0, in order of m (streams.h)
    for (int64_t m = 0; m < n; ++m)
      acc = acc + k.load(many, {t, k.index(m), col}, tile).to(DType::F32);
    k.store(one, {t, zero, col}, acc.to(DType::BF16));
  });
  return k.finish();
}

} // namespace tk::kernels::mhc
