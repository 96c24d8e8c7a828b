//===- sinkhorn.cpp -------------------------------------------------------===//
#include "kernels/mhc/sinkhorn.h"
#include "kernels/mhc/sinkhorn_tiles.h"

#include <stdexcept>
#include <utility>

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
    if (!c.backward) {
      k.store(out, {at, zero, zero},
              c.isRolled() ? sinkhornRolledForward(k, in, eps, n, c.repeat, nullptr, SinkhornDivision::Exact).second
                           : sinkhornForwardTiles(in, eps, n, c.repeat, SinkhornDivision::Exact).out);
      return;
    }
    // The gradient to the softmax's output, and the softmax.
    auto walkBack = [&]() -> std::pair<Tile, Tile> {
      if (!c.isRolled()) {
        SinkhornTrace f = sinkhornForwardTiles(in, eps, n, c.repeat, SinkhornDivision::Reciprocal);
        Tile g = k.load(dout[0], {at, zero, zero}, tile);
        for (auto s = f.steps.rbegin(); s != f.steps.rend(); ++s)
          g = sinkhornStepVjp(g, *s, n);
        return {g, f.soft};
      }
      SinkhornSnapshots snapshots(k, n, rows, c.repeat, SinkhornDivision::Reciprocal);
      Tile soft = sinkhornRolledForward(k, in, eps, n, c.repeat, &snapshots, SinkhornDivision::Reciprocal).first;
      k.barrier();
      // r = repeat - 1 down to 1: column step r, then row step r, whose input is column step r - 1 normalised
      // (carried on as the next iteration's column step); column step 0 last.
      SinkhornTrace::Step column = snapshots.columnStep(k.index(c.repeat - 1));
      auto carriedColumn = [&](const Tile &input, const Tile &divisor) {
        return SinkhornTrace::Step{input, divisor, 1, column.inverted};
      };
      std::vector<Tile> walked =
          k.loop(zero, k.index(c.repeat - 1), {k.load(dout[0], {at, zero, zero}, tile), column.input, column.divisor},
                 [&](const Index &i, const std::vector<Tile> &carried) {
                   Index r = k.index(c.repeat - 1) - i;
                   SinkhornTrace::Step previous = snapshots.columnStep(r - k.index(1));
                   Tile back = sinkhornStepVjp(carried[0], carriedColumn(carried[1], carried[2]), n);
                   Tile g = sinkhornStepVjp(back, snapshots.rowStep(r, previous), n);
                   return std::vector<Tile>{g, previous.input, previous.divisor};
                 });
      return {sinkhornStepVjp(walked[0], carriedColumn(walked[1], walked[2]), n), soft};
    };
    auto [g, soft] = walkBack();
    k.store(out, {at, zero, zero}, sinkhornSoftmaxVjp(g, soft, n));
  });
  return k.finish();
}

} // namespace tk::kernels::mhc
