//===- per_token_cast.cpp - the kernel, in the DSL, and its reference -----===//
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

void perTokenCastReference(const void *x, DType in, int64_t m, int64_t k, int64_t xRowStride, int64_t group,
                           bool roundSf, uint8_t *out, float *sf, int64_t sfStride0, int64_t sfStride1, Format fmt) {
  std::vector<uint8_t> codes(fmt == Format::E2M1 ? k : 0);
  std::vector<uint16_t> codes12(fmt == Format::E5M6 ? k : 0);
  auto value = [&](int64_t i, int64_t j) -> float {
    if (in == DType::BF16)
      return bf16ToF32(static_cast<const uint16_t *>(x)[i * xRowStride + j]);
    return static_cast<const float *>(x)[i * xRowStride + j];
  };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t gi = 0; gi < ceilDiv(k, group); ++gi) {
      int64_t begin = gi * group, end = std::min(k, begin + group);
      float amax = 0.0f;
      for (int64_t j = begin; j < end; ++j)
        amax = std::fmax(amax, std::fabs(value(i, j)));
      Scale s = scaleRule(amax, fmt, roundSf);
      sf[i * sfStride0 + gi * sfStride1] = s.sf;
      for (int64_t j = begin; j < end; ++j) {
        float v = value(i, j) * s.inv;
        if (fmt == Format::E2M1)
          codes[j] = encodeE2M1(v);
        else if (fmt == Format::E5M6)
          codes12[j] = encodeE5M6(v);
        else
          out[i * k + j] = encodeE4M3(v);
      }
      if (fmt == Format::E2M1 && gi == ceilDiv(k, group) - 1)
        packE2M1(codes.data(), k, out + i * (k / 2));
      if (fmt == Format::E5M6 && gi == ceilDiv(k, group) - 1)
        packE5M6(codes12.data(), k, out + i * (k / 2 * 3));
    }
}

} // namespace tk::kernels::quant

namespace tk::kernels::quant {

void perTokenRequantReference(const uint8_t *x, int64_t m, int64_t k, int64_t xRowStride, const float *sfIn,
                              int64_t sfInStride0, int64_t sfInStride1, int64_t bIn, int64_t gIn, int64_t group,
                              bool roundSf, uint8_t *out, float *sf, int64_t sfStride0, int64_t sfStride1,
                              Format fmt, Format inFmt) {
  std::vector<float> v(m * k);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) {
      const uint8_t *row = x + i * xRowStride;
      float d = inFmt == Format::E2M1 ? decodeE2M1((uint8_t)(row[j / 2] >> (4 * (j % 2)))) : decodeE4M3(row[j]);
      v[i * k + j] = d * sfIn[(i / bIn) * sfInStride0 + (j / gIn) * sfInStride1];
    }
  perTokenCastReference(v.data(), dsl::DType::F32, m, k, k, group, roundSf, out, sf, sfStride0, sfStride1, fmt);
}

void perTokenCastWithSfReference(const void *x, dsl::DType in, int64_t m, int64_t k, int64_t xRowStride,
                                 int64_t group, const float *sf, int64_t sfStride0, uint8_t *out, Format fmt) {
  std::vector<uint8_t> codes(k);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      float v = in == dsl::DType::BF16 ? bf16ToF32(static_cast<const uint16_t *>(x)[i * xRowStride + j])
                                       : static_cast<const float *>(x)[i * xRowStride + j];
      float scaled = v * (1.0f / sf[i * sfStride0 + j / group]);
      if (fmt == Format::E2M1)
        codes[j] = encodeE2M1(scaled);
      else
        out[i * k + j] = encodeE4M3(scaled);
    }
    if (fmt == Format::E2M1)
      packE2M1(codes.data(), k, out + i * (k / 2));
  }
}

} // namespace tk::kernels::quant
