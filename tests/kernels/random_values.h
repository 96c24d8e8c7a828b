// Seeded standard-normal draws for the GPU tests' inputs (checks/random_draws.h
// from a generator of `seed`), and central differences for the layer tests.
#pragma once

#include "checks/random_draws.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace tk::test {

inline std::vector<float> randn(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  return checks::randn(rng, (int64_t)count);
}

inline std::vector<uint16_t> randnBf16(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  return checks::randnBf16(rng, (int64_t)count);
}

/// dL/dp for every element of p by central differences of `loss` (steps of
/// 1e-6 of the element's magnitude, at least 1e-6): the layer tests' oracle.
template <typename Loss> std::vector<double> centralDifferences(std::vector<double> &p, const Loss &loss) {
  std::vector<double> g(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    const double keep = p[i], step = 1e-6 * std::max(1.0, std::fabs(keep));
    p[i] = keep + step;
    const double up = loss();
    p[i] = keep - step;
    g[i] = (up - loss()) / (2 * step);
    p[i] = keep;
  }
  return g;
}

} // namespace tk::test
