//===- big_fuse.cpp - mhc_pre_big_fuse's mixes kernel ----------------------===//
#include "kernels/mhc/big_fuse.h"
#include "kernels/mhc/mix_gate_tiles.h"
#include "kernels/mhc/sinkhorn.h"
#include "kernels/mhc/sinkhorn_tiles.h"

#include <stdexcept>

namespace tk::kernels::mhc {

using namespace tk::dsl;

BuiltKernel buildBigFuseMixes(mlir::MLIRContext &ctx, const BigFuseMixConfig &c) {
  if (c.streams < 1 || c.repeat < 1)
    throw std::invalid_argument("mhc_pre_big_fuse: needs n >= 1 and repeat >= 1");
  SinkhornConfig sinkhorn;
  sinkhorn.n = c.streams, sinkhorn.repeat = c.repeat, sinkhorn.rows = c.rows, sinkhorn.threads = c.threads;
  const int64_t n = c.streams, rows = sinkhorn.numRows();
  KernelBuilder k(ctx, "mhc_pre_big_fuse_mixes", sinkhorn.numThreads());
  applyDependentLaunch(k, c.pdl);
  Dim tokens = k.dynamic("tokens");
  Tensor postLogits = k.input("post_logits", {tokens, n, 1}, DType::F32, {kDynamicStride, 1, 1}, 4);
  Tensor combLogits = k.input("comb_logits", {tokens, n, n}, DType::F32, {kDynamicStride, n, 1}, 4);
  Tensor scale = k.input("scale", {1, 1, 3}, DType::F32, {}, 4);
  Tensor basePost = k.input("base_post", {1, n, 1}, DType::F32, {}, 4);
  Tensor baseComb = k.input("base_comb", {1, n, n}, DType::F32, {}, 4);
  Tensor post = k.output("post", {tokens, n, 1}, DType::F32, {}, 4);
  Tensor comb = k.output("comb", {tokens, n, n}, DType::F32, {}, 4);
  Uniform postMult = k.scalarInput("post_mult", DType::F32), eps = k.scalarInput("eps", DType::F32);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * rows, zero = k.index(0);
    auto scaleOf = [&](int64_t group) { return k.load(scale, {zero, zero, k.index(group)}, {1, 1, 1}); };
    // Tokens past T read as zero; their stores are dropped.
    Affine p{expand(expand(scaleOf(1), 1, n), 0, rows),
             expand(k.load(basePost, {zero, zero, zero}, {1, n, 1}), 0, rows)};
    Tile postLogit = k.load(postLogits, {at, zero, zero}, {rows, n, 1});
    k.store(post, {at, zero, zero}, gateActivation(MixGroup::Post, postLogit, p, &postMult, nullptr));
    // (relayout: a layout reduced along all three dimensions nests too deep.)
    Affine z{expand(relayout(expand(expand(scaleOf(2), 2, n), 1, n)), 0, rows),
             expand(k.load(baseComb, {zero, zero, zero}, {1, n, n}), 0, rows)};
    Tile logits =
        gateActivation(MixGroup::Comb, k.load(combLogits, {at, zero, zero}, {rows, n, n}), z, nullptr, nullptr);
    k.store(comb, {at, zero, zero},
            c.rolled ? sinkhornRolledForward(k, logits, eps, n, c.repeat, nullptr, SinkhornDivision::Exact).second
                     : sinkhornForwardTiles(logits, eps, n, c.repeat, SinkhornDivision::Exact).out);
  });
  return k.finish();
}

} // namespace tk::kernels::mhc
