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

#include "kernels/mhc/sinkhorn.h"
#include "tk/dsl/KernelBuilder.h"

#include <utility>
#include <vector>

namespace tk::kernels::mhc {

/// The forward of a [rows, n, n] tile x, with what the backward walks back.
struct SinkhornTrace {
  dsl::Tile soft; ///< the row softmax
  /// Each normalisation step's input and its divisors, kept reduced ([rows, 1, n] or [rows, n, 1]): the
  /// denominators d (sums plus eps) of an Exact step, their reciprocals 1 / d of a Reciprocal one (computed once,
  /// then shared by the step and its VJP, so both use the same rounding of 1 / d).
  struct Step {
    dsl::Tile input, divisor;
    int64_t dim;   ///< 1: the column step (a sum over r); 2: the row step
    bool inverted; ///< divisor holds 1 / d (SinkhornDivision::Reciprocal)
  };
  std::vector<Step> steps;
  dsl::Tile out;
};

/// How the steps divide: the forward exactly (IEEE divisions, the reference's bits); the backward's recompute of
/// it by one reciprocal a denominator, kept for its VJP (within the backward's tolerance; the n = 4 backward's
/// PTX has 4 reciprocals and no IEEE division, where it had 37).
enum class SinkhornDivision { Exact, Reciprocal };

inline dsl::Tile sinkhornPlusEps(const dsl::Tile &v, const dsl::Uniform &eps) {
  using namespace tk::dsl;
  return map({v}, DType::F32, [&](const std::vector<Scalar> &s) { return s[0] + s[0].uniform(eps); });
}

/// 1 / v, elementwise (on a reduced tile: once a denominator).
inline dsl::Tile sinkhornInverse(const dsl::Tile &v) {
  using namespace tk::dsl;
  return map({v}, DType::F32, [](const std::vector<Scalar> &d) { return d[0].constantF32(1.0) / d[0]; });
}

/// v's divisors along `dim` (the reduced denominators d) as `division` divides: d itself (Exact), or 1 / d
/// once a denominator (Reciprocal).
inline SinkhornTrace::Step sinkhornDivisors(const dsl::Tile &v, const dsl::Tile &d, int64_t dim,
                                            SinkhornDivision division) {
  if (division == SinkhornDivision::Exact)
    return {v, d, dim, false};
  return {v, sinkhornInverse(d), dim, true};
}
/// The step's output: its input divided by d (or multiplied by 1 / d).
inline dsl::Tile sinkhornNormalized(const SinkhornTrace::Step &s, int64_t n) {
  using namespace tk::dsl;
  return s.inverted ? s.input * expand(s.divisor, s.dim, n) : s.input / expand(s.divisor, s.dim, n);
}

/// The row softmax of x, its maximum subtracted.
inline dsl::Tile sinkhornSoftmax(const dsl::Tile &x, int64_t n, SinkhornDivision division) {
  using namespace tk::dsl;
  Tile e = map({x, expand(reduce_max(x, 2), 2, n)}, DType::F32,
               [](const std::vector<Scalar> &v) { return exp(v[0] - v[1]); });
  return sinkhornNormalized(sinkhornDivisors(e, reduce_sum(e, 2), 2, division), n);
}

/// One normalisation step of v along `dim`: its divisors (sums plus eps) and, by sinkhornNormalized, v divided
/// by them.
inline SinkhornTrace::Step sinkhornStep(const dsl::Tile &v, const dsl::Uniform &eps, int64_t dim,
                                        SinkhornDivision division) {
  return sinkhornDivisors(v, sinkhornPlusEps(dsl::reduce_sum(v, dim), eps), dim, division);
}

/// The step's vector-Jacobian product: the gradient g of its output to its input's, (g - (sum g X) / d) / d
/// as (g - (sum g X) r) r with r = 1 / d once a denominator (the step's own when it is a Reciprocal one):
/// within the backward's tolerance (r's rounding enters both products), and at most one reciprocal a
/// denominator instead of two IEEE divisions an element.
inline dsl::Tile sinkhornStepVjp(const dsl::Tile &g, const SinkhornTrace::Step &s, int64_t n) {
  using namespace tk::dsl;
  Tile r = s.inverted ? s.divisor : sinkhornInverse(s.divisor);
  Tile q = reduce_sum(g * s.input, s.dim) * r;
  return (g - expand(q, s.dim, n)) * expand(r, s.dim, n);
}

/// The unrolled forward: every step's values stay values of the program (the backward's registers).
inline SinkhornTrace sinkhornForwardTiles(const dsl::Tile &x, const dsl::Uniform &eps, int64_t n, int64_t repeat,
                                          SinkhornDivision division) {
  using namespace tk::dsl;
  Tile soft = sinkhornSoftmax(x, n, division);
  std::vector<SinkhornTrace::Step> steps;
  auto normalize = [&](const Tile &v, int64_t dim) {
    steps.push_back(sinkhornStep(v, eps, dim, division));
    return sinkhornNormalized(steps.back(), n);
  };
  Tile p = normalize(sinkhornPlusEps(soft, eps), 1);
  for (int64_t r = 1; r < repeat; ++r)
    p = normalize(normalize(p, 2), 1);
  return {soft, steps, p};
}

/// The softmax's vector-Jacobian product, the backward's last step: (g - sum g S) S.
inline dsl::Tile sinkhornSoftmaxVjp(const dsl::Tile &g, const dsl::Tile &soft, int64_t n) {
  using namespace tk::dsl;
  return (g - expand(reduce_sum(g * soft, 2), 2, n)) * soft;
}

/// Where a rolled backward's forward leaves each step for the walk back, in
/// shared memory (the buffers of sinkhornSnapshotShapes): the column steps
/// whole, the row steps' divisors only. A row step's input is the column
/// step before it normalised, which the walk back recomputes (rowStep): the
/// forward's own multiplications (or divisions) on the same values, so the
/// same bits, at half the shared memory a matrix (more CTAs an SM).
class SinkhornSnapshots {
public:
  SinkhornSnapshots(dsl::KernelBuilder &k, int64_t n, int64_t rows, int64_t repeat, SinkhornDivision division)
      : SinkhornSnapshots(k, n, rows, division, sinkhornSnapshotShapes(n, rows, repeat)) {}

  /// Stores step `s` of repeat index r (0 for the first column step).
  void keep(const SinkhornTrace::Step &s, const dsl::Index &r) {
    const dsl::Index zero = k_.index(0);
    if (s.dim == 1) {
      k_.store(colInputs_, {r * rows_, zero, zero}, s.input);
      k_.store(colDivisors_, {r * rows_, zero, zero}, s.divisor);
    } else {
      k_.store(rowDivisors_, {(r - 1) * rows_, zero, zero}, s.divisor);
    }
  }
  /// Column step r (r = 0 .. repeat - 1), as keep() stored it.
  SinkhornTrace::Step columnStep(const dsl::Index &r) {
    const dsl::Index at = r * rows_, zero = k_.index(0);
    return {k_.load(colInputs_, {at, zero, zero}, {rows_, n_, n_}),
            k_.load(colDivisors_, {at, zero, zero}, {rows_, 1, n_}), 1, inverted_};
  }
  /// Row step r (r = 1 .. repeat - 1): its input from the column step before it (`previousColumn`, step r - 1).
  SinkhornTrace::Step rowStep(const dsl::Index &r, const SinkhornTrace::Step &previousColumn) {
    const dsl::Index zero = k_.index(0);
    return {sinkhornNormalized(previousColumn, n_),
            k_.load(rowDivisors_, {(r - 1) * rows_, zero, zero}, {rows_, n_, 1}), 2, inverted_};
  }

private:
  SinkhornSnapshots(dsl::KernelBuilder &k, int64_t n, int64_t rows, SinkhornDivision division,
                    const SinkhornSnapshotShapes &shapes)
      : k_(k), n_(n), rows_(rows), inverted_(division == SinkhornDivision::Reciprocal),
        colInputs_(k.shared(shapes.colInputs, dsl::DType::F32)),
        colDivisors_(k.shared(shapes.colDivisors, dsl::DType::F32)),
        rowDivisors_(k.shared(shapes.rowDivisors, dsl::DType::F32)) {}

  dsl::KernelBuilder &k_;
  int64_t n_, rows_;
  bool inverted_; ///< the steps kept are Reciprocal ones: their divisors are 1 / d
  dsl::Shared colInputs_, colDivisors_, rowDivisors_;
};

/// The forward as a loop over r = 1 .. repeat - 1 (scf.for): a program whose
/// size does not grow with repeat. With `snapshots`, every step is stored
/// there. Returns {soft, out}.
inline std::pair<dsl::Tile, dsl::Tile> sinkhornRolledForward(dsl::KernelBuilder &k, const dsl::Tile &x,
                                                             const dsl::Uniform &eps, int64_t n, int64_t repeat,
                                                             SinkhornSnapshots *snapshots, SinkhornDivision division) {
  using namespace tk::dsl;
  auto keep = [&](const SinkhornTrace::Step &s, const Index &r) {
    if (snapshots)
      snapshots->keep(s, r);
  };
  Tile soft = sinkhornSoftmax(x, n, division);
  SinkhornTrace::Step first = sinkhornStep(sinkhornPlusEps(soft, eps), eps, 1, division);
  keep(first, k.index(0));
  Tile p = sinkhornNormalized(first, n);
  p = k.loop(k.index(1), k.index(repeat), {p}, [&](const Index &r, const std::vector<Tile> &carried) {
    SinkhornTrace::Step row = sinkhornStep(carried[0], eps, 2, division);
    keep(row, r);
    SinkhornTrace::Step col = sinkhornStep(sinkhornNormalized(row, n), eps, 1, division);
    keep(col, r);
    return std::vector<Tile>{sinkhornNormalized(col, n)};
  })[0];
  return {soft, p};
}

} // namespace tk::kernels::mhc
