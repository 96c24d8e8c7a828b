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

int64_t PerTokenCastConfig::tileK() const {
  if (group == hidden)
    return hidden;
  int64_t k = std::max<int64_t>(group, std::gcd<int64_t>(4096, hidden));
  return quantizedInput() ? std::max(k, inBlockK) : k;
}

int64_t PerTokenCastConfig::tileM() const {
  if (tileRows > 0 && !quantizedInput())
    return tileRows;
  const int64_t elements = in == DType::BF16 ? 2048 : 4096;
  int64_t m = elements % tileK() ? 1 : elements / tileK();
  // A bf16 input's e2m1 output: its encode costs more instructions per value
  // than the load, and up to 8 rows (8192 elements) per block spread each
  // thread's fixed work over more values (the schedule's rows=8 on 32768x7168
  // g=32, 8 rows of 1024: 269.4 -> 244.6 us on the H200). At most 8 rows, so
  // narrow tiles (K = 576: 64 columns) keep their grid; f32 inputs, not
  // measured, keep theirs.
  if (in == DType::BF16 && out == Format::E2M1 && 8192 % tileK() == 0)
    m = std::max(m, std::min<int64_t>(8192 / tileK(), 8));
  // bf16 rows of 2048 to 8192 columns: two rows per block, not one (rows=2 on
  // the H200: e5m6 32768x7168 272 -> 239 us, 8001x2048 22.9 -> 21.6;
  // f32 rows, at twice the bytes, were slower with two).
  if (in == DType::BF16 && !quantizedInput() && m == 1 && 2 * tileK() <= 16384)
    m = 2;
  return quantizedInput() && inBlockM > 1 ? std::gcd(m, inBlockM) : m;
}

std::string PerTokenCastConfig::kernelName() const {
  switch (mode) {
  case PerTokenMode::Cast: return "per_token_cast";
  case PerTokenMode::SfOnly: return "per_token_cast_with_sf_only";
  case PerTokenMode::PrecomputedSf: return "per_token_cast_with_precomputed_sf";
  }
  return "?";
}

std::string PerTokenCastConfig::key() const {
  const std::string schedule = perTokenCastSchedule().spec().print(*this);
  return kernelName() + ":K=" + std::to_string(hidden) + ",g=" + std::to_string(group) + ",in=" + name(in) +
         (quantizedInput() ? ",inblock=" + std::to_string(inBlockM) + "x" + std::to_string(inBlockK) +
                                         (inPackedSf ? ",inue8m0" : "")
                                   : "") +
         ",round=" + std::to_string(roundSf) + ",xalign=" + std::to_string(xAlignBytes) +
         (xContiguous ? ",xcontig" : "") +
         ",outalign=" + std::to_string(outAlignBytes) + (out == Format::E2M1 ? ",out=e2m1" : out == Format::E5M6 ? ",out=e5m6" : "") +
         (packedSf ? ",ue8m0" : "") + (schedule.empty() ? "" : "|" + schedule);
}

/// What the kernel needs of a schedule beyond each field's range.
static std::string checkSchedule(const PerTokenCastConfig &c) {
  const bool set = c.tileRows || c.persistentBlocksPerSm || c.pipelineStages || c.tilesPerBlock != 1;
  if (set && c.quantizedInput())
    return "a quantized input's kernel keeps its schedule (rows, persistent and the pipeline are for bf16 and f32 "
           "inputs)";
  if (c.tileRows * c.tileK() > 16384) // the kernel holds the whole tile in registers
    return std::to_string(c.tileRows) + " rows of " + std::to_string(c.tileK()) +
           " columns exceed 16384 elements per block";
  if (c.persistentBlocksPerSm && (c.pipelineStages || c.tilesPerBlock != 1))
    return "persistent and the pipeline (stages, tiles) are separate schedules: set one";
  if (c.pipelineStages * c.tileM() * c.tileK() * byteSize(c.in) > kPipelineSharedBytes)
    return std::to_string(c.pipelineStages) + " stages exceed the " + std::to_string(kPipelineSharedBytes) +
           " bytes a pipeline may take";
  if (c.out != Format::E5M6 && c.e5m6Run != 16)
    return "run is for an E5M6 output";
  return "";
}

/// Rows per block around the heuristic's, a persistent grid, a short pipeline.
static std::vector<std::string> searchSpace(const PerTokenCastConfig &c, const compiler::Target &) {
  if (c.quantizedInput())
    return {};
  std::vector<std::string> out;
  for (int64_t rows : {c.tileM() / 2, c.tileM() * 2, c.tileM() * 4})
    if (rows >= 1 && rows * c.tileK() <= 16384)
      out.push_back("rows=" + std::to_string(rows));
  out.push_back("persistent=4");
  out.push_back("stages=2,tiles=4");
  if (c.out == Format::E5M6)
    out.push_back("run=8");
  return out;
}

/// A quantized input's kernel has one schedule; run shapes E5M6 outputs
/// only; stages are as many as fit.
static void leaveAside(PerTokenCastConfig &c) {
  if (c.quantizedInput())
    c.tileRows = c.persistentBlocksPerSm = c.pipelineStages = 0, c.tilesPerBlock = 1;
  if (c.out != Format::E5M6)
    c.e5m6Run = 16;
  c.pipelineStages = stagesThatFit(c.pipelineStages, c.tileM() * c.tileK() * byteSize(c.in));
}

const OperatorSchedule<PerTokenCastConfig> &perTokenCastSchedule() {
  using C = PerTokenCastConfig;
  static const OperatorSchedule<C> schedule(
      "per_token_cast",
      "tk_per_token_cast, tk_per_token_cast_with_sf_only, tk_per_token_cast_with_precomputed_sf",
      ScheduleSpec<C>({
          {&C::tileRows, {"rows", "rows per block (the tile holds at most 16384 elements)", 1, 64, false, 0}},
          {&C::persistentBlocksPerSm, {"persistent", "a persistent grid of this many blocks per SM", 1, 32, false, 0}},
          {&C::pipelineStages, {"stages", "pipeline stages of the row tiles a block walks", 1, 8, false, 0}},
          {&C::tilesPerBlock, {"tiles", "row tiles each block walks (with stages)", 1, 64, false, 1}},
          {&C::e5m6Run, {"run", "values per thread along a row of E5M6 output", 8, 64, false, 16}},
      }),
      checkSchedule, searchSpace, leaveAside);
  return schedule;
}

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
