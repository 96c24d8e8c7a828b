//===- sinkhorn_tiles.h - Sinkhorn's forward steps as DSL tiles ------------===//
//
// Shared by the Sinkhorn kernels (sinkhorn.cpp) and mhc_pre_big_fuse's mix
// kernel (big_fuse.cpp), which must match them bit for bit: the same ops in
// the same order, on a [rows, n, n] tile of the same shape and threads
// (which fixes the layout, hence the order of the sums' terms). Unrolled or
// rolled (a loop over the repeat count) the steps are the same ops, so both
// forms give the same bits. DSL only.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/dsl/KernelBuilder.h"

#include <utility>
#include <vector>

namespace tk::kernels::mhc {

/// The forward of a [rows, n, n] tile x, with what the backward walks back.
struct SinkhornTrace {
  dsl::Tile soft; ///< the row softmax
  /// Each normalisation step's input and denominators (sums plus eps, kept
  /// reduced: [rows, 1, n] or [rows, n, 1]).
  struct Step {
    dsl::Tile input, denominator;
    int64_t dim; ///< 1: the column step (a sum over r); 2: the row step
  };
  std::vector<Step> steps;
  dsl::Tile out;
};

inline dsl::Tile sinkhornPlusEps(const dsl::Tile &v, const dsl::Uniform &eps) {
  using namespace tk::dsl;
  return map({v}, DType::F32, [&](const std::vector<Scalar> &s) { return s[0] + s[0].uniform(eps); });
}

/// The row softmax of x, its maximum subtracted.
inline dsl::Tile sinkhornSoftmax(const dsl::Tile &x, int64_t n) {
  using namespace tk::dsl;
  Tile e = map({x, expand(reduce_max(x, 2), 2, n)}, DType::F32,
               [](const std::vector<Scalar> &v) { return exp(v[0] - v[1]); });
  return e / expand(reduce_sum(e, 2), 2, n);
}

/// One normalisation step of v along `dim`: its denominators and v divided by them.
inline SinkhornTrace::Step sinkhornStep(const dsl::Tile &v, const dsl::Uniform &eps, int64_t dim) {
  return {v, sinkhornPlusEps(dsl::reduce_sum(v, dim), eps), dim};
}
inline dsl::Tile sinkhornNormalized(const SinkhornTrace::Step &s, int64_t n) {
  return s.input / dsl::expand(s.denominator, s.dim, n);
}

/// The step's vector-Jacobian product: the gradient g of its output to its input's.
inline dsl::Tile sinkhornStepVjp(const dsl::Tile &g, const SinkhornTrace::Step &s, int64_t n) {
  using namespace tk::dsl;
  Tile d = expand(s.denominator, s.dim, n);
  return (g - expand(reduce_sum(g * s.input, s.dim), s.dim, n) / d) / d;
}

/// The unrolled forward: every step's values stay values of the program (the backward's registers).
inline SinkhornTrace sinkhornForwardTiles(const dsl::Tile &x, const dsl::Uniform &eps, int64_t n, int64_t repeat) {
  using namespace tk::dsl;
  Tile soft = sinkhornSoftmax(x, n);
  std::vector<SinkhornTrace::Step> steps;
  auto normalize = [&](const Tile &v, int64_t dim) {
    steps.push_back(sinkhornStep(v, eps, dim));
    return sinkhornNormalized(steps.back(), n);
  };
  Tile p = normalize(sinkhornPlusEps(soft, eps), 1);
  for (int64_t r = 1; r < repeat; ++r)
    p = normalize(normalize(p, 2), 1);
  return {soft, steps, p};
}

/// Where a rolled backward's forward leaves each step for the walk back:
/// column step r (r = 0 .. repeat - 1) at rows [r * rows, (r + 1) * rows) of
/// colInputs [repeat * rows, n, n] and colDenominators [repeat * rows, 1, n];
/// row step r (r = 1 .. repeat - 1) at (r - 1) * rows of rowInputs and
/// rowDenominators [(repeat - 1) * rows, n, n] and [.., n, 1].
struct SinkhornSnapshots {
  dsl::Shared colInputs, colDenominators, rowInputs, rowDenominators;
};

/// The forward as a loop over r = 1 .. repeat - 1 (scf.for): a program whose
/// size does not grow with repeat. With `snapshots`, every step is stored
/// there. Returns {soft, out}.
inline std::pair<dsl::Tile, dsl::Tile> sinkhornRolledForward(dsl::KernelBuilder &k, const dsl::Tile &x,
                                                             const dsl::Uniform &eps, int64_t n, int64_t rows,
                                                             int64_t repeat, const SinkhornSnapshots *snapshots) {
  using namespace tk::dsl;
  Index zero = k.index(0);
  auto keep = [&](const SinkhornTrace::Step &s, const Index &at) {
    if (!snapshots)
      return;
    bool col = s.dim == 1;
    k.store(col ? snapshots->colInputs : snapshots->rowInputs, {at, zero, zero}, s.input);
    k.store(col ? snapshots->colDenominators : snapshots->rowDenominators, {at, zero, zero}, s.denominator);
  };
  Tile soft = sinkhornSoftmax(x, n);
  SinkhornTrace::Step first = sinkhornStep(sinkhornPlusEps(soft, eps), eps, 1);
  keep(first, zero);
  Tile p = sinkhornNormalized(first, n);
  p = k.loop(k.index(1), k.index(repeat), {p}, [&](const Index &r, const std::vector<Tile> &carried) {
    SinkhornTrace::Step row = sinkhornStep(carried[0], eps, 2);
    keep(row, (r - 1) * rows);
    SinkhornTrace::Step col = sinkhornStep(sinkhornNormalized(row, n), eps, 1);
    keep(col, r * rows);
    return std::vector<Tile>{sinkhornNormalized(col, n)};
  })[0];
  return {soft, p};
}

} // namespace tk::kernels::mhc
