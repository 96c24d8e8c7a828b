//===- per_block_cast.cpp - the kernel, in the DSL ------------------------===//
#include "kernels/quant/per_block_cast.h"
#include "kernels/quant/scale_rule.h"

#include <optional>

using namespace tk::dsl;

namespace tk::kernels::quant {

BuiltKernel buildPerBlockCast(mlir::MLIRContext &ctx, const PerBlockCastConfig &c) {
  const int64_t bm = c.tileM(), bk = c.tileK(), g = c.blockK, blocksPerTile = bk / g;
  const bool writesData = c.mode != PerBlockMode::SfOnly, computesSf = c.mode != PerBlockMode::PrecomputedSf;
  KernelBuilder k(ctx, c.kernelName(), c.threads());
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  Dim tokens = k.dynamic("num_tokens");
  Dim blockRows = ceil_div(tokens, c.blockM);
  const int64_t blockCols = ceilDiv(c.hidden, g);
  Tensor x = k.input("x", {tokens, c.hidden}, c.in, {c.hidden, 1}, c.xAlignBytes);
  std::optional<Tensor> out, sf;
  if (!computesSf) // scale factors in: row-major, any row stride
    sf = k.input("sf", {blockRows, blockCols}, DType::F32, {kDynamicStride, 1}, 4);
  const bool fp4 = c.out == Format::E2M1;
  if (writesData)
    out = fp4 ? k.output("out", {tokens, c.hidden / 2}, DType::I8, {}, c.outAlignBytes)
              : k.output("out", {tokens, c.hidden}, DType::F8E4M3, {}, c.outAlignBytes);
  if (computesSf && c.packedSf) // byte (p, q) at 4 p + 4 P (q / 4) + q % 4
    sf = k.output("out_sf", {blockRows, ceilDiv(blockCols, 4), 4}, DType::I8, {4, kDynamicStride, 1}, 4);
  else if (computesSf)
    sf = k.output("out_sf", {blockRows, blockCols}, DType::F32, {kDynamicStride, kDynamicStride}, 4);

  k.grid({blockRows, ceil_div(c.hidden, bk)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * bm, col = b[1] * bk, sfCol = b[1] * blocksPerTile;
    Tile tile = k.load(x, {row, col}, {bm, bk}).to(DType::F32);
    // INV per scale block, shape [1, bk / g]: from the scale rule over the
    // block's absmax (rows of groups first, then down the b rows), or the
    // reciprocal of the given scale factors.
    auto inverseScales = [&]() -> Tile {
      if (!computesSf)
        return map({k.load(*sf, {b[0], sfCol}, {1, blocksPerTile})}, DType::F32,
                   [](auto &s) { return s[0].constantF32(1.0) / s[0]; });
      Tile amax = reduce_max(reduce_absmax(tile, /*dim=*/1, g), /*dim=*/0); // [1, bk / g]
      auto [scale, inv] = scaleRule(amax, c.out, c.roundSf);
      if (c.packedSf)
        k.store(*sf, {b[0], sfCol}, ue8m0Bytes(scale), /*splitLast=*/4);
      else
        k.store(*sf, {b[0], sfCol}, scale);
      return inv;
    };
    Tile inv = inverseScales();
    if (!writesData)
      return;
    Tile scaled = tile * expand(expand(inv, 0, bm), 1, g);
    if (fp4)
      k.store(*out, {row, b[1] * (bk / 2)}, pack_e2m1(scaled));
    else
      k.store(*out, {row, col}, scaled.to(DType::F8E4M3));
  });
  return k.finish();
}

} // namespace tk::kernels::quant
