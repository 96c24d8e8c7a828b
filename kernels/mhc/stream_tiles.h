//===- stream_tiles.h - DSL pieces the n-stream kernels share --------------===//
//
// Only the DSL programs (expand_to_mhc.cpp, apply_mix.cpp, post.cpp) include
// this; the runtime-only library never does.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/mhc/streams.h"
#include "tk/dsl/KernelBuilder.h"

namespace tk::kernels::mhc {

/// fma(a, b, c) elementwise: one rounding per term, the spec's order.
inline dsl::Tile fmaTile(const dsl::Tile &a, const dsl::Tile &b, const dsl::Tile &c) {
  return dsl::map({a, b, c}, dsl::DType::F32, [](const std::vector<dsl::Scalar> &v) { return fma(v[0], v[1], v[2]); });
}

/// weights[t .. t + rows, i, j] (an f32 (T, n, m) tensor) widened along a
/// [rows, 1, cols] tile's columns: a per-token mix against a stream's chunk.
inline dsl::Tile widenedWeight(dsl::KernelBuilder &k, const dsl::Tensor &weights, const dsl::Index &t, int64_t i,
                               int64_t j, const StreamConfig &c) {
  return dsl::expand(k.load(weights, {t, k.index(i), k.index(j)}, {c.tileRows(), 1, 1}), 2, c.tileCols());
}

/// What every stream kernel sets before its tensors: padded stores for a
/// tile wider than a short H, and the sums over H's access width.
inline void configureStreamKernel(dsl::KernelBuilder &k, const StreamConfig &c) {
  if (c.tileCols() > c.hidden) // a short H (77) in one tile of its power-of-two ceiling
    k.allowPaddedStores();
  if (sumsOverHidden(c.op))
    k.maxAccessBytes(sumAccessBytes(c));
}

} // namespace tk::kernels::mhc
