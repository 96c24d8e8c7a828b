//===- mix_gates.cpp ------------------------------------------------------===//
#include "kernels/mhc/mix_gate_tiles.h"

#include <stdexcept>

namespace tk::kernels::mhc {

using namespace tk::dsl;

namespace {

const std::vector<int64_t> kUnitInner = {kDynamicStride, 1};

/// Group g's scale and base as (rows, w) tiles.
Affine loadAffine(KernelBuilder &k, const Tensor &scale, const Tensor &base, int64_t g, const MixGroup &grp,
                  int64_t rows) {
  Index zero = k.index(0);
  Tile s = expand(expand(k.load(scale, {zero, k.index(g)}, {1, 1}), 1, grp.width), 0, rows);
  Tile b = expand(k.load(base, {zero, k.index(grp.offset)}, {1, grp.width}), 0, rows);
  return {s, b};
}

BuiltKernel buildForward(mlir::MLIRContext &ctx, const MixGateConfig &c) {
  const int64_t n = c.streams, m = mixColumns(c.kind, n), rows = c.numRows();
  const std::vector<MixGroup> groups = mixGroups(c.kind, n);
  const int64_t numGroups = (int64_t)groups.size();
  KernelBuilder k(ctx, mixGateName(c.kind, false), c.numThreads());
  Dim tokens = k.dynamic("tokens");
  Tensor input = k.input("input", {tokens, m}, DType::F32, kUnitInner, 4);
  Tensor scale = k.input("scale", {1, numGroups}, DType::F32, {}, 4);
  Tensor base = k.input("base", {1, m}, DType::F32, {}, 4);
  std::vector<Tensor> outs;
  for (const MixGroup &g : groups)
    outs.push_back(k.output(g.name, {tokens, g.width}, DType::F32, {}, 4));
  std::vector<Uniform> scalars; // Split: post_mult, pre_eps; Head: pre_eps
  if (c.kind == MixGateKind::Split)
    scalars.push_back(k.scalarInput("post_mult", DType::F32));
  Uniform preEps = k.scalarInput("pre_eps", DType::F32);
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * rows;
    for (int64_t gi = 0; gi < numGroups; ++gi) {
      const MixGroup &g = groups[gi];
      Tile u = k.load(input, {at, k.index(g.offset)}, {rows, g.width});
      Affine a = loadAffine(k, scale, base, gi, g, rows);
      k.store(outs[gi], {at, k.index(0)},
              gateActivation(g.activation, u, a, scalars.empty() ? nullptr : &scalars[0], &preEps));
    }
  });
  return k.finish();
}

BuiltKernel buildBackward(mlir::MLIRContext &ctx, const MixGateConfig &c) {
  const int64_t n = c.streams, m = mixColumns(c.kind, n), rows = c.numRows();
  const std::vector<MixGroup> groups = mixGroups(c.kind, n);
  const int64_t numGroups = (int64_t)groups.size();
  KernelBuilder k(ctx, mixGateName(c.kind, true), c.numThreads());
  applyDependentLaunch(k, c.pdl);
  Dim tokens = k.dynamic("tokens"), blocks = k.dynamic("blocks");
  std::vector<Tensor> grads;
  for (const MixGroup &g : groups)
    grads.push_back(k.input(std::string("grad_") + g.name, {tokens, g.width}, DType::F32, {}, 4));
  Tensor input = k.input("input", {tokens, m}, DType::F32, kUnitInner, 4);
  std::vector<Tensor> post; // Split: the forward's post output
  if (c.kind == MixGateKind::Split)
    post.push_back(k.input("post", {tokens, n}, DType::F32, {}, 4));
  Tensor scale = k.input("scale", {1, numGroups}, DType::F32, {}, 4);
  Tensor base = k.input("base", {1, m}, DType::F32, {}, 4);
  Tensor gradInput = k.output("grad_input", {tokens, m}, DType::F32, {}, 4);
  Tensor partial = k.output("partial", {blocks, m + numGroups}, DType::F32, {}, 4);
  std::vector<Uniform> postMult;
  if (c.kind == MixGateKind::Split)
    postMult.push_back(k.scalarInput("post_mult", DType::F32));
  k.grid({ceil_div(tokens, rows)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * rows, zero = k.index(0);
    // Tokens past T read as zero: their gradients, hence dz, are zero.
    for (int64_t gi = 0; gi < numGroups; ++gi) {
      const MixGroup &g = groups[gi];
      Index col = k.index(g.offset);
      Tile u = k.load(input, {at, col}, {rows, g.width});
      Tile grad = k.load(grads[gi], {at, zero}, {rows, g.width});
      Affine a = loadAffine(k, scale, base, gi, g, rows);
      Tile dz = grad;
      if (g.activation == MixGroup::Pre) {
        dz = map({grad, affineSigmoid(u, a)}, DType::F32,
                 [](const std::vector<Scalar> &v) { return v[0] * v[1] * (v[1].constantF32(1.0) - v[1]); });
      } else if (g.activation == MixGroup::Post) {
        Tile p = k.load(post[0], {at, zero}, {rows, g.width});
        dz = map({grad, p}, DType::F32, [&](const std::vector<Scalar> &v) {
          return v[0] * v[1] * (v[1].constantF32(1.0) - v[1] / v[1].uniform(postMult[0]));
        });
      }
      k.store(gradInput, {at, col}, dz * a.scale);
      k.store(partial, {b[0], col}, relayout(reduce_sum(dz, 0)));
      k.store(partial, {b[0], k.index(m + gi)}, relayout(reduce_sum(reduce_sum(dz * u, 1), 0)));
    }
  });
  return k.finish();
}

BuiltKernel buildReduce(mlir::MLIRContext &ctx, const MixGateConfig &c) {
  const int64_t n = c.streams, m = mixColumns(c.kind, n), numGroups = (int64_t)mixGroups(c.kind, n).size();
  const int64_t r = kMixReduceRows;
  // One warp: the partial rows are a few KB, and 32 rows of m or G columns fill 32 threads.
  KernelBuilder k(ctx, mixGateName(c.kind, true) + "_reduce", 32);
  applyDependentLaunch(k, c.pdl);
  Dim blocks = k.dynamic("blocks");
  Tensor partial = k.input("partial", {blocks, m + numGroups}, DType::F32, {}, 4);
  Tensor gradScale = k.output("grad_scale", {1, numGroups}, DType::F32, {}, 4);
  Tensor gradBase = k.output("grad_base", {1, m}, DType::F32, {}, 4);
  k.grid({1}, [&](const std::vector<Index> &) {
    Index zero = k.index(0), scaleCol = k.index(m);
    // Rows past P read as zero, so the last step may run over.
    std::vector<Tile> acc =
        k.loop(zero, k.index(ceil_div(blocks, r)), {k.full({r, m}, 0.0), k.full({r, numGroups}, 0.0)},
               [&](const Index &i, const std::vector<Tile> &sum) -> std::vector<Tile> {
                 return {sum[0] + k.load(partial, {i * r, zero}, {r, m}),
                         sum[1] + k.load(partial, {i * r, scaleCol}, {r, numGroups})};
               });
    k.store(gradBase, {zero, zero}, relayout(reduce_sum(acc[0], 0)));
    k.store(gradScale, {zero, zero}, relayout(reduce_sum(acc[1], 0)));
  });
  return k.finish();
}

} // namespace

BuiltKernel buildMixGate(mlir::MLIRContext &ctx, const MixGateConfig &c) {
  if (c.streams < 1)
    throw std::invalid_argument(mixGateName(c.kind, c.backward()) + ": needs n >= 1");
  switch (c.stage) {
  case MixGateStage::Forward:
    return buildForward(ctx, c);
  case MixGateStage::Backward:
    return buildBackward(ctx, c);
  case MixGateStage::Reduce:
    break;
  }
  return buildReduce(ctx, c);
}

} // namespace tk::kernels::mhc
