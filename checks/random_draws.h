//===- random_draws.h - seeded standard-normal inputs ---------------------===//
//
// The inputs of the checks and of the GPU tests: f32 draws and the bf16 bits
// of such draws, from the caller's generator so that a case's inputs follow
// from its seed. At least one element, so that an empty tensor still has an
// address; `count` are drawn.
//===----------------------------------------------------------------------===//
#pragma once

#include "checks/bf16.h"
#include "checks/parallel_slices.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace tk::checks {

/// Past this many elements the draws come in fixed slices of it, each from its own generator seeded from `rng`, on
/// the host's cores (one generator took seconds for the spec's 8192 x 4 x 7168 tensors, in every `tk tune`
/// candidate's check). Up to it they are drawn in order from `rng`.
constexpr int64_t kDrawSlice = int64_t(1) << 20;

/// `count` elements draw(z, i) of standard-normal z (at least one element).
template <typename T, typename Draw> std::vector<T> drawNormals(std::mt19937 &rng, int64_t count, Draw draw) {
  std::vector<T> v(std::max<int64_t>(1, count));
  if (count <= kDrawSlice) {
    std::normal_distribution<float> normal;
    for (int64_t i = 0; i < count; ++i)
      v[i] = draw(normal(rng), i);
    return v;
  }
  const uint32_t seed = rng();
  forSlices(count, kDrawSlice, [&](int64_t begin, int64_t end, int64_t slice) {
    std::mt19937 sliceRng(seed + (uint32_t)slice * 0x9E3779B9u);
    std::normal_distribution<float> normal;
    for (int64_t i = begin; i < end; ++i)
      v[i] = draw(normal(sliceRng), i);
  });
  return v;
}

inline std::vector<float> randn(std::mt19937 &rng, int64_t count, float scale = 1.0f) {
  return drawNormals<float>(rng, count, [scale](float z, int64_t) { return z * scale; });
}

/// With `period`, element i is scaled by 1 + 0.01 ((i % period) / h): the
/// spec's per-stream scale of a flattened [n, H] row (period n H).
inline std::vector<uint16_t> randnBf16(std::mt19937 &rng, int64_t count, int64_t period = 0, int64_t h = 1) {
  return drawNormals<uint16_t>(rng, count, [period, h](float z, int64_t i) {
    return bf16Bits(z * (period ? 1.0f + 0.01f * (float)((i % period) / h) : 1.0f));
  });
}

} // namespace tk::checks
