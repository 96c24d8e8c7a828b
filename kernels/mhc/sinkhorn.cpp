//===- sinkhorn.cpp -------------------------------------------------------===//
#include "kernels/mhc/sinkhorn.h"
#include "kernels/mhc/sinkhorn_tiles.h"

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
    SinkhornTrace f = sinkhornForwardTiles(k.load(x, {at, zero, zero}, tile), eps, n, c.repeat);
    const Tile &soft = f.soft, &p = f.out;
    if (!c.backward) {
      k.store(out, {at, zero, zero}, p);
      return;
    }
    Tile g = k.load(dout[0], {at, zero, zero}, tile);
    for (auto s = f.steps.rbegin(); s != f.steps.rend(); ++s) {
      Tile d = expand(s->denominator, s->dim, n);
      g = (g - expand(reduce_sum(g * s->input, s->dim), s->dim, n) / d) / d;
    }
    k.store(out, {at, zero, zero}, (g - expand(reduce_sum(g * soft, 2), 2, n)) * soft);
  });
  return k.finish();
}

} // namespace tk::kernels::mhc
