//===- multilayer.cpp - mhc_multilayer_recompute (3.9) ---------------------===//
//
// One kernel rebuilds a segment's layer inputs and residuals: per tile of
// `rows` tokens by `cols` columns of H, the n streams of R_0 are read once
// and kept in registers (as f32 of their bf16 values), and every layer runs
// apply fwd then post fwd on them with the ops, and the order, of
// apply_mix.cpp and post.cpp: bit-identical to calling those per layer.
// Every tensor is a 2-D view, (T, n H) for the residuals: a 3-D memref costs
// 72 bytes of launch parameters, a 2-D one 56, and 10 layers' 61 tensors fit
// a launch's 4 KB only so. cols divides H, so a stream's chunk at m H + col
// never reaches the next stream.
//===----------------------------------------------------------------------===//
#include "kernels/mhc/stream_tiles.h"

#include <stdexcept>

namespace tk::kernels::mhc {

using namespace tk::dsl;

BuiltKernel buildMultilayerKernel(mlir::MLIRContext &ctx, const StreamConfig &c) {
  const int64_t n = c.streams, h = c.hidden, layers = c.layers, posts = c.postLayers, rows = c.tileRows(),
                cols = c.tileCols(), align = streamRowAlignBytes(h);
  if (layers < 1 || (posts != layers && posts != layers - 1) || h % cols != 0)
    throw std::invalid_argument("mhc_multilayer_recompute: needs L >= 1, Lp = L - 1 or L and cols dividing H");
  KernelBuilder k(ctx, streamOpName(c.op), c.numThreads());
  Dim tokens = k.dynamic("tokens");
  Tensor initial = k.input("initial_residual", {tokens, n * h}, DType::BF16, {}, align);
  std::vector<Tensor> pre, y, post, comb, input, res;
  for (int64_t l = 0; l < layers; ++l)
    pre.push_back(k.input("pre_mix_" + std::to_string(l), {tokens, n}, DType::F32, {}, 4));
  for (int64_t l = 0; l < posts; ++l)
    y.push_back(k.input("layer_output_" + std::to_string(l), {tokens, h}, DType::BF16, {}, align));
  for (int64_t l = 0; l < posts; ++l)
    post.push_back(k.input("post_mix_" + std::to_string(l), {tokens, n}, DType::F32, {}, 4));
  for (int64_t l = 0; l < posts; ++l)
    comb.push_back(k.input("comb_mix_" + std::to_string(l), {tokens, n * n}, DType::F32, {}, 4));
  for (int64_t l = 0; l < layers; ++l)
    input.push_back(k.output("layer_input_" + std::to_string(l), {tokens, h}, DType::BF16, {}, align));
  for (int64_t l = 0; l < posts; ++l)
    res.push_back(k.output("residual_" + std::to_string(l), {tokens, n * h}, DType::BF16, {}, align));
  const std::vector<int64_t> tile = {rows, cols};
  k.grid({ceil_div(tokens, rows), Dim(h / cols)}, [&](const std::vector<Index> &b) {
    Index t = b[0] * rows, col = b[1] * cols;
    auto streamCol = [&](int64_t m) { return col + k.index(m * h); };
    // A per-token mix (column j of a (T, w) tensor) against the chunk, as widenedWeight does.
    auto weight = [&](const Tensor &mix, int64_t j) {
      return expand(k.load(mix, {t, k.index(j)}, {rows, 1}), 1, cols);
    };
    std::vector<Tile> r;
    for (int64_t m = 0; m < n; ++m)
      r.push_back(k.load(initial, {t, streamCol(m)}, tile).to(DType::F32));
    for (int64_t l = 0; l < layers; ++l) {
      Tile acc = k.full(tile, 0.0); // apply fwd: acc = fma(pre[m], R[m], acc), m = 0..n-1
      for (int64_t m = 0; m < n; ++m)
        acc = fmaTile(weight(pre[l], m), r[m], acc);
      k.store(input[l], {t, col}, acc.to(DType::BF16));
      if (l >= posts)
        break;
      // post fwd: acc = post[o] y, then fma(comb[i, o], R[i], acc) for i = 0..n-1; R re-rounded to bf16.
      Tile yl = k.load(y[l], {t, col}, tile).to(DType::F32);
      std::vector<Tile> next;
      for (int64_t o = 0; o < n; ++o) {
        Tile v = weight(post[l], o) * yl;
        for (int64_t i = 0; i < n; ++i)
          v = fmaTile(weight(comb[l], i * n + o), r[i], v);
        Tile rounded = v.to(DType::BF16);
        k.store(res[l], {t, streamCol(o)}, rounded);
        next.push_back(rounded.to(DType::F32));
      }
      r = next;
    }
  });
  return k.finish();
}

} // namespace tk::kernels::mhc
