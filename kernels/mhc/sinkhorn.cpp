//===- sinkhorn.cpp -------------------------------------------------------===//
#include "kernels/mhc/sinkhorn.h"
#include "kernels/mhc/sinkhorn_tiles.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace tk::kernels::mhc {

using namespace tk::dsl;

BuiltKernel buildSinkhorn(mlir::MLIRContext &ctx, const SinkhornConfig &c) {
  if (c.n < 1 || c.repeat < 1)
    throw std::invalid_argument("sinkhorn_normalize: needs n >= 1 and repeat >= 1");
  const int64_t n = c.n, rows = c.numRows();
  const std::vector<int64_t> tile = {rows, n, n};
  KernelBuilder k(ctx, c.backward ? "sinkhorn_normalize_bwd" : "sinkhorn_normalize_fwd", c.numThreads());
  if (c.minBlocks)
    k.minBlocksPerSm(c.minBlocks);
  Dim matrices = k.dynamic("matrices");
  std::vector<Tensor> dout; // the backward's grad_out, first
  if (c.backward)
    dout.push_back(k.input("grad_out", {matrices, n, n}, DType::F32, {}, 4));
  Tensor x = k.input("x", {matrices, n, n}, DType::F32, {}, 4);
  Tensor out = k.output(c.backward ? "grad_x" : "out", {matrices, n, n}, DType::F32, {}, 4);
  Uniform eps = k.scalarInput("eps", DType::F32);
  k.grid({ceil_div(matrices, rows)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * rows, zero = k.index(0);
    Tile in = k.load(x, {at, zero, zero}, tile);
    if (c.isRolled()) {
      // The backward's snapshots in shared memory (the buffers of a repeat of 1 have no row steps: one row, unused).
      const int64_t cols = c.repeat * rows, rowSteps = std::max<int64_t>(1, c.repeat - 1) * rows;
      std::optional<SinkhornSnapshots> keep;
      if (c.backward)
        keep = SinkhornSnapshots{k.shared({cols, n, n}, DType::F32), k.shared({cols, 1, n}, DType::F32),
                                 k.shared({rowSteps, n, n}, DType::F32), k.shared({rowSteps, n, 1}, DType::F32)};
      auto [soft, p] = sinkhornRolledForward(k, in, eps, n, rows, c.repeat, keep ? &*keep : nullptr);
      if (!c.backward) {
        k.store(out, {at, zero, zero}, p);
        return;
      }
      k.barrier();
      auto step = [&](const Shared &inputs, const Shared &denominators, const Index &from, int64_t dim) {
        std::vector<int64_t> reduced = {rows, n, n};
        reduced[dim] = 1;
        return SinkhornTrace::Step{k.load(inputs, {from, zero, zero}, tile),
                                   k.load(denominators, {from, zero, zero}, reduced), dim};
      };
      // r = repeat - 1 down to 1: column step r, then row step r; column step 0 last.
      Tile g = k.load(dout[0], {at, zero, zero}, tile);
      g = k.loop(zero, k.index(c.repeat - 1), {g}, [&](const Index &i, const std::vector<Tile> &carried) {
        Index r = k.index(c.repeat - 1) - i;
        Tile back = sinkhornStepVjp(carried[0], step(keep->colInputs, keep->colDenominators, r * rows, 1), n);
        back = sinkhornStepVjp(back, step(keep->rowInputs, keep->rowDenominators, (r - 1) * rows, 2), n);
        return std::vector<Tile>{back};
      })[0];
      g = sinkhornStepVjp(g, step(keep->colInputs, keep->colDenominators, zero, 1), n);
      k.store(out, {at, zero, zero}, (g - expand(reduce_sum(g * soft, 2), 2, n)) * soft);
      return;
    }
    SinkhornTrace f = sinkhornForwardTiles(in, eps, n, c.repeat);
    if (!c.backward) {
      k.store(out, {at, zero, zero}, f.out);
      return;
    }
    Tile g = k.load(dout[0], {at, zero, zero}, tile);
    for (auto s = f.steps.rbegin(); s != f.steps.rend(); ++s)
      g = sinkhornStepVjp(g, *s, n);
    k.store(out, {at, zero, zero}, (g - expand(reduce_sum(g * f.soft, 2), 2, n)) * f.soft);
  });
  return k.finish();
}

} // namespace tk::kernels::mhc
