// Seeded standard-normal draws for the GPU tests' inputs: f32, and bf16 bits
// of such values.
#pragma once

#include "checks/bf16.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace tk::test {

inline std::vector<float> randn(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(count);
  for (float &f : v)
    f = normal(rng);
  return v;
}

inline std::vector<uint16_t> randnBf16(size_t count, uint32_t seed) {
  std::vector<float> f = randn(count, seed);
  std::vector<uint16_t> b(count);
  for (size_t i = 0; i < count; ++i)
    b[i] = checks::bf16Bits(f[i]);
  return b;
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
