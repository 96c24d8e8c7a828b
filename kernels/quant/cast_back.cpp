//===- cast_back.cpp - the kernel, in the DSL -----------------------------===//
#include "kernels/quant/cast_back.h"
#include "kernels/quant/scale_rule.h"

#include <numeric>

using namespace tk::dsl;

namespace tk::kernels::quant {

BuiltKernel buildCastBack(mlir::MLIRContext &ctx, const CastBackConfig &c, const compiler::Target &target) {
  const int64_t bm = c.tileM(), bk = c.tileK(), gt = c.groupInTile();
  KernelBuilder k(ctx, "cast_back", c.threads());
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  Dim tokens = k.dynamic("num_tokens");
  const bool fp4 = c.in == Format::E2M1, e5m6 = c.in == Format::E5M6;
  // E5M6 input: runs of 8 codes (12 bytes) per 16 bytes of the target's
  // access width, 8 values as wide as one 16-byte access of bf16 output;
  // runs of 16 made the bf16 cast 203.0 -> 230.4 us on the H200.
  if (e5m6)
    k.vectorElements(8 * std::max(1, target.vectorBytes / 16));
  const int64_t stored = fp4 ? c.hidden / 2 : e5m6 ? c.hidden / 2 * 3 : c.hidden; // bytes per row
  Tensor x = k.input("x", {tokens, stored}, fp4 ? DType::I8 : e5m6 ? DType::U8 : DType::F8E4M3, {stored, 1},
                     c.xAlignBytes);
  // Scale factors in any strides: row-major, or (TMA-aligned) column-major.
  Tensor sf = c.packedSf ? k.input("x_sf", {ceil_div(tokens, c.blockM), ceilDiv(ceilDiv(c.hidden, c.blockK), 4), 4},
                                   DType::I8, {4, kDynamicStride, 1}, 4)
                         : k.input("x_sf", {ceil_div(tokens, c.blockM), ceilDiv(c.hidden, c.blockK)}, DType::F32,
                                   {kDynamicStride, kDynamicStride}, 4);
  Tensor out = k.output("out", {tokens, c.hidden}, c.out, {}, c.outAlignBytes);

  k.grid({ceil_div(tokens, bm), ceil_div(c.hidden, bk)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * bm, col = b[1] * bk;
    // The bm rows of a tile lie in one scale block row (bm divides b).
    Tile scales = c.packedSf ? ue8m0ToF32(k.load(sf, {row / c.blockM, col / c.blockK}, {1, bk / gt}, 4))
                             : k.load(sf, {row / c.blockM, col / c.blockK}, {1, bk / gt});
    Tile values = fp4    ? unpack_e2m1(k.load(x, {row, b[1] * (bk / 2)}, {bm, bk / 2}))
                  : e5m6 ? unpack_e5m6(k.load(x, {row, b[1] * (bk / 2 * 3)}, {bm, bk / 2 * 3}))
                         : k.load(x, {row, col}, {bm, bk}).to(DType::F32);
    Tile product = bm > 1 ? values * expand(scales, 0, bm)
                          : gt == 1 ? values * scales : values * expand(scales, 1, gt);
    k.store(out, {row, col}, c.out == DType::F32 ? product : product.to(c.out));
  });
  return k.finish();
}

} // namespace tk::kernels::quant
