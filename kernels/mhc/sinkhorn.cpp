//===- sinkhorn.cpp -------------------------------------------------------===//
#include "kernels/mhc/sinkhorn.h"

#include <stdexcept>

namespace tk::kernels::mhc {

using namespace tk::dsl;

BuiltKernel buildSinkhorn(mlir::MLIRContext &ctx, const SinkhornConfig &c) {
  if (c.n < 1 || c.repeat < 1)
    throw std::invalid_argument("sinkhorn_normalize: needs n >= 1 and repeat >= 1");
  const int64_t n = c.n, rows = c.numRows();
  const std::vector<int64_t> tile = {rows, n, n};
  KernelBuilder k(ctx, c.backward ? "sinkhorn_normalize_bwd" : "sinkhorn_normalize_fwd", c.numThreads());
  Dim matrices = k.dynamic("matrices");
  std::vector<Tensor> dout; // the backward's grad_out, first
  if (c.backward)
    dout.push_back(k.input("grad_out", {matrices, n, n}, DType::F32, {}, 4));
  Tensor x = k.input("x", {matrices, n, n}, DType::F32, {}, 4);
  Tensor out = k.output(c.backward ? "grad_x" : "out", {matrices, n, n}, DType::F32, {}, 4);
  Uniform eps = k.scalarInput("eps", DType::F32);
  auto plusEps = [&](const Tile &v) {
    return map({v}, DType::F32, [&](const std::vector<Scalar> &s) { return s[0] + s[0].uniform(eps); });
  };
  k.grid({ceil_div(matrices, rows)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * rows, zero = k.index(0);
    Tile t = k.load(x, {at, zero, zero}, tile);
    Tile e = map({t, expand(reduce_max(t, 2), 2, n)}, DType::F32,
                 [](const std::vector<Scalar> &v) { return exp(v[0] - v[1]); });
    Tile soft = e / expand(reduce_sum(e, 2), 2, n);
    // Each normalisation step's input and denominators (sums plus eps, kept
    // reduced: [rows, 1, n] or [rows, n, 1]), for the backward.
    struct Step {
      Tile input, denominator;
      int64_t dim; // 1: the column step (a sum over r); 2: the row step
    };
    std::vector<Step> steps;
    auto normalize = [&](const Tile &v, int64_t dim) {
      Tile d = plusEps(reduce_sum(v, dim));
      steps.push_back({v, d, dim});
      return v / expand(d, dim, n);
    };
    Tile p = normalize(plusEps(soft), 1);
    for (int64_t r = 1; r < c.repeat; ++r)
      p = normalize(normalize(p, 2), 1);
    if (!c.backward) {
      k.store(out, {at, zero, zero}, p);
      return;
    }
    Tile g = k.load(dout[0], {at, zero, zero}, tile);
    for (auto s = steps.rbegin(); s != steps.rend(); ++s) {
      Tile d = expand(s->denominator, s->dim, n);
      g = (g - expand(reduce_sum(g * s->input, s->dim), s->dim, n) / d) / d;
    }
    k.store(out, {at, zero, zero}, (g - expand(reduce_sum(g * soft, 2), 2, n)) * soft);
  });
  return k.finish();
}

} // namespace tk::kernels::mhc
