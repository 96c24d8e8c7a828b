//===- per_token_cast.cpp - the kernel, in the DSL ------------------------===//
#include "kernels/quant/per_token_cast.h"
#include "kernels/quant/scale_rule.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <optional>
#include <vector>

using namespace tk::dsl;

namespace tk::kernels::quant {

BuiltKernel buildPerTokenCast(mlir::MLIRContext &ctx, const PerTokenCastConfig &c) {
  const int64_t bm = c.tileM(), bk = c.tileK(), g = c.group == c.hidden ? bk : c.group;
  const bool writesData = c.mode != PerTokenMode::SfOnly, computesSf = c.mode != PerTokenMode::PrecomputedSf;
  KernelBuilder k(ctx, c.kernelName(), /*threads=*/128);
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  Dim tokens = k.dynamic("num_tokens");
  const bool quantizedIn = c.quantizedInput(), fp4In = c.in == DType::I8; // FP4: two codes per byte
  const int64_t xWidth = fp4In ? c.hidden / 2 : c.hidden;
  Tensor x = k.input("x", {tokens, xWidth}, c.in, {c.xContiguous ? xWidth : kDynamicStride, 1}, c.xAlignBytes);
  std::optional<Tensor> xSf; // the quantized input's scale factors, in any strides
  if (quantizedIn && c.inPackedSf) // byte view of UE8M0 words (quant.md 3.3)
    xSf = k.input("x_sf", {ceil_div(tokens, c.inBlockM), ceilDiv(ceilDiv(c.hidden, c.inBlockK), 4), 4}, DType::I8,
                  {4, kDynamicStride, 1}, 4);
  else if (quantizedIn)
    xSf = k.input("x_sf", {ceil_div(tokens, c.inBlockM), ceilDiv(c.hidden, c.inBlockK)}, DType::F32,
                  {kDynamicStride, kDynamicStride}, 4);
  std::optional<Tensor> out, sf;
  if (!computesSf) // scale factors in: row-major, any row stride
    sf = k.input("sf", {tokens, c.groups()}, DType::F32, {kDynamicStride, 1}, 4);
  const bool fp4 = c.out == Format::E2M1, e5m6 = c.out == Format::E5M6;
  if (e5m6)
    k.vectorElements(c.e5m6Run);
  if (writesData)
    out = fp4    ? k.output("out", {tokens, c.hidden / 2}, DType::I8, {}, c.outAlignBytes)
          : e5m6 ? k.output("out", {tokens, c.hidden / 2 * 3}, DType::U8, {}, c.outAlignBytes)
                 : k.output("out", {tokens, c.hidden}, DType::F8E4M3, {}, c.outAlignBytes);
  if (computesSf && c.packedSf) // byte (i, k) at 4 i + 4 P (k / 4) + k % 4
    sf = k.output("out_sf", {tokens, ceilDiv(c.groups(), 4), 4}, DType::I8, {4, kDynamicStride, 1}, 4);
  else if (computesSf)
    sf = k.output("out_sf", {tokens, c.groups()}, DType::F32, {kDynamicStride, kDynamicStride}, 4);

  // The cast of tile b = (row tile, column tile); `staged` is its input tile
  // when a pipeline has copied it into shared memory.
  auto castTile = [&](const std::vector<Index> &b, const std::optional<Shared> &staged) {
    Index row = b[0] * bm, col = b[1] * bk, sfCol = b[1] * (bk / g);
    Tile tile = fp4In    ? unpack_e2m1(k.load(x, {row, b[1] * (bk / 2)}, {bm, bk / 2}))
                : staged ? k.load(*staged, {k.index(0), k.index(0)}, {bm, bk}).to(DType::F32)
                         : k.load(x, {row, col}, {bm, bk}).to(DType::F32);
    if (quantizedIn) { // v = fl(decode(x) * S_in): one scale row per token, or one for the whole tile
      const int64_t gIn = c.inBlockK;
      auto loadScales = [&](Index r, std::vector<int64_t> shape) {
        Tile t = k.load(*xSf, {r, col / gIn}, shape, c.inPackedSf ? 4 : 0);
        return c.inPackedSf ? ue8m0ToF32(t) : t;
      };
      Tile scales = c.inBlockM == 1 ? expand(loadScales(row, {bm, bk / gIn}), 1, gIn)
                                    : expand(expand(loadScales(row / c.inBlockM, {1, bk / gIn}), 0, bm), 1, gIn);
      tile = tile * scales;
    }
    // INV per group: from the scale rule, or the reciprocal of the given scale factors.
    auto inverseScales = [&]() -> Tile {
      if (!computesSf)
        return map({k.load(*sf, {row, sfCol}, {bm, bk / g})}, DType::F32,
                   [](auto &s) { return s[0].constantF32(1.0) / s[0]; });
      Tile amax = reduce_absmax(tile, /*dim=*/1, g); // [bm, bk / g]
      auto [scale, inv] = scaleRule(amax, c.out, c.roundSf);
      if (c.packedSf)
        k.store(*sf, {row, sfCol}, ue8m0Bytes(scale), /*splitLast=*/4);
      else
        k.store(*sf, {row, sfCol}, scale);
      return inv;
    };
    Tile inv = inverseScales();
    if (writesData && fp4)
      k.store(*out, {row, b[1] * (bk / 2)}, pack_e2m1(tile * expand(inv, 1, g)));
    else if (writesData && e5m6)
      k.store(*out, {row, b[1] * (bk / 2 * 3)}, pack_e5m6(tile * expand(inv, 1, g)));
    else if (writesData)
      k.store(*out, {row, col}, (tile * expand(inv, 1, g)).to(DType::F8E4M3));
  };
  if ((c.persistentBlocksPerSm || c.pipelineStages) && quantizedIn)
    throw std::invalid_argument("per-token cast: persistent and pipelined schedules take bf16 or f32 inputs");
  const std::vector<Dim> tiles = {ceil_div(tokens, bm), ceil_div(c.hidden, bk)};
  if (c.persistentBlocksPerSm) {
    k.persistentGrid(c.persistentBlocksPerSm, tiles, [&](const std::vector<Index> &b) { castTile(b, std::nullopt); });
  } else if (c.pipelineStages) {
    const int64_t n = c.tilesPerBlock;
    k.grid({ceil_div(tokens, bm * n), tiles[1]}, [&](const std::vector<Index> &b) {
      Shared buf = k.shared({bm, bk}, c.in);
      k.pipeline(k.index(0), k.index(n), c.pipelineStages, [&](const Index &i) {
        std::vector<Index> tile = {b[0] * n + i, b[1]};
        k.copy(x, {tile[0] * bm, tile[1] * bk}, buf);
        castTile(tile, buf);
      });
    });
  } else {
    k.grid(tiles, [&](const std::vector<Index> &b) { castTile(b, std::nullopt); });
  }
  return k.finish();
}

} // namespace tk::kernels::quant
