//===- random_draws.h - seeded standard-normal inputs ---------------------===//
//
// The inputs of the checks and of the GPU tests: f32 draws and the bf16 bits
// of such draws, from the caller's generator so that a case's inputs follow
// from its seed. At least one element, so that an empty tensor still has an
// address; `count` are drawn.
//===----------------------------------------------------------------------===//
#pragma once

#include "checks/bf16.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace tk::checks {

inline std::vector<float> randn(std::mt19937 &rng, int64_t count, float scale = 1.0f) {
  std::normal_distribution<float> normal;
  std::vector<float> v(std::max<int64_t>(1, count));
  for (int64_t i = 0; i < count; ++i)
    v[i] = normal(rng) * scale;
  return v;
}

/// With `period`, element i is scaled by 1 + 0.01 ((i % period) / h): the
/// spec's per-stream scale of a flattened [n, H] row (period n H).
inline std::vector<uint16_t> randnBf16(std::mt19937 &rng, int64_t count, int64_t period = 0, int64_t h = 1) {
  std::normal_distribution<float> normal;
  std::vector<uint16_t> v(std::max<int64_t>(1, count));
  for (int64_t i = 0; i < count; ++i)
    v[i] = bf16Bits(normal(rng) * (period ? 1.0f + 0.01f * (float)((i % period) / h) : 1.0f));
  return v;
}

} // namespace tk::checks
