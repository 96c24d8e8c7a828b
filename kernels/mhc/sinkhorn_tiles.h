//===- sinkhorn_tiles.h - Sinkhorn's forward steps as DSL tiles ------------===//
//
// Shared by the Sinkhorn kernels (sinkhorn.cpp) and mhc_pre_big_fuse's mix
// kernel (big_fuse.cpp), which must match them bit for bit: the same ops in
// the same order, on a [rows, n, n] tile of the same shape and threads
// (which fixes the layout, hence the order of the sums' terms). DSL only.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/dsl/KernelBuilder.h"

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

inline SinkhornTrace sinkhornForwardTiles(const dsl::Tile &x, const dsl::Uniform &eps, int64_t n, int64_t repeat) {
  using namespace tk::dsl;
  auto plusEps = [&](const Tile &v) {
    return map({v}, DType::F32, [&](const std::vector<Scalar> &s) { return s[0] + s[0].uniform(eps); });
  };
  Tile e = map({x, expand(reduce_max(x, 2), 2, n)}, DType::F32,
               [](const std::vector<Scalar> &v) { return exp(v[0] - v[1]); });
  Tile soft = e / expand(reduce_sum(e, 2), 2, n);
  std::vector<SinkhornTrace::Step> steps;
  auto normalize = [&](const Tile &v, int64_t dim) {
    Tile d = plusEps(reduce_sum(v, dim));
    steps.push_back({v, d, dim});
    return v / expand(d, dim, n);
  };
  Tile p = normalize(plusEps(soft), 1);
  for (int64_t r = 1; r < repeat; ++r)
    p = normalize(normalize(p, 2), 1);
  return {soft, steps, p};
}

} // namespace tk::kernels::mhc
