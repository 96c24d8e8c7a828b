//===- per_block_cast_lossless.cpp - the kernel, in the DSL ---------------===//
//
// Exponent arithmetic on the scale factors (quant.md 4.9): e_in = the biased
// exponent of an input block's scale, e_max its maximum over the output block,
// e_out = max(e_max - 6, 0), out = e4m3(decode(x) * 2^(e_in - e_out)), which
// is exact while e_in >= e_out - 5: tile.e2m1_to_e4m3, which maps FP4 codes
// to e4m3 codes by table lookup without decoding them.
//===----------------------------------------------------------------------===//
#include "kernels/quant/per_block_cast_lossless.h"
#include "kernels/quant/scale_rule.h"

using namespace tk::dsl;

namespace tk::kernels::quant {

namespace {
/// Repeats along dim 0 and 1 (a group of 1 is no repetition).
Tile expand2(const Tile &t, int64_t rows, int64_t cols) {
  Tile r = rows > 1 ? expand(t, 0, rows) : t;
  return cols > 1 ? expand(r, 1, cols) : r;
}
/// Maxima over groups along dim 1, then dim 0 (a group of 1 is no reduction).
Tile reduceMax2(const Tile &t, int64_t rows, int64_t cols) {
  Tile r = cols > 1 ? reduce_max(t, 1, cols) : t;
  return rows > 1 ? reduce_max(r, 0, rows) : r;
}
Scalar exponentOf(const Scalar &scale) { return (scale.bitsAsI32() >> 23) & scale.constantI32(0xFF); }
/// fp32 input scales as the kernel reads them: a power of two, +-0 or an
/// infinity stays; anything else (a mantissa, a negative power of two, NaN)
/// becomes +Inf, whose exponent 255 marks its output block as invalid data.
/// Per input block, before the expansion to elements.
Tile infinityUnlessPowerOfTwo(const Tile &scales) {
  return map({scales}, DType::F32, [](auto &s) {
    Scalar b = s[0].bitsAsI32(), one = s[0].constantI32(1);
    Scalar mantissa = b & s[0].constantI32(0x7FFFFF), exponent = (b >> 23) & s[0].constantI32(0xFF);
    Scalar negative = (b >> 31) & one;
    Scalar bad = min(min(mantissa, one) + negative * min(exponent, one), one);
    return (b + bad * (s[0].constantI32(0x7F800000) - b)).bitsAsF32();
  });
}
} // namespace

// Everything is computed at element granularity: the input scales expanded to
// the tile's elements, their maximum per output block (along the row, then
// down the rows, as per_block_cast's absmax), expanded back. Reductions and
// expansions then stay within the two levels the layout pass assigns.
BuiltKernel buildPerBlockCastLossless(mlir::MLIRContext &ctx, const PerBlockLosslessConfig &c) {
  const int64_t bm = c.tileM(), bk = c.tileK();
  const int64_t rowsIn = bm / c.inBlockM, colsIn = bk / c.inBlockK; // input blocks per tile
  KernelBuilder k(ctx, "per_block_cast_lossless", c.threads());
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  Dim tokens = k.dynamic("num_tokens");
  Tensor x = k.input("x", {tokens, c.hidden / 2}, DType::I8, {c.hidden / 2, 1}, c.xAlignBytes);
  const int64_t kbIn = ceilDiv(c.hidden, c.inBlockK), kbOut = ceilDiv(c.hidden, c.outBlockK);
  Tensor sfIn = c.inPackedSf ? k.input("x_sf", {ceil_div(tokens, c.inBlockM), ceilDiv(kbIn, 4), 4}, DType::I8,
                                       {4, kDynamicStride, 1}, 4)
                             : k.input("x_sf", {ceil_div(tokens, c.inBlockM), kbIn}, DType::F32,
                                       {kDynamicStride, kDynamicStride}, 4);
  Tensor out = k.output("out", {tokens, c.hidden}, DType::F8E4M3, {}, c.outAlignBytes);
  Tensor sfOut = c.outPackedSf ? k.output("out_sf", {ceil_div(tokens, c.outBlockM), ceilDiv(kbOut, 4), 4}, DType::I8,
                                          {4, kDynamicStride, 1}, 4)
                               : k.output("out_sf", {ceil_div(tokens, c.outBlockM), kbOut}, DType::F32,
                                          {kDynamicStride, kDynamicStride}, 4);
  Tensor violations = k.output("violations", {ceil_div(tokens, bm), ceil_div(c.hidden, bk)}, DType::F32, {}, 4);

  k.grid({ceil_div(tokens, bm), ceil_div(c.hidden, bk)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * bm, col = b[1] * bk;
    // The codes first: their load is in flight while the scales are reduced
    // (the violation flag's block reduction has a barrier, which no load
    // moves across).
    Tile codes = k.load(x, {row, b[1] * (bk / 2)}, {bm, bk / 2});
    // Input scales of the tile's blocks (out of bounds: 0, i.e. absent), per element.
    Tile loaded = k.load(sfIn, {b[0] * rowsIn, b[1] * colsIn}, {rowsIn, colsIn}, c.inPackedSf ? 4 : 0);
    if (c.inPackedSf && kbIn % 4) // the last word's bytes past the K / g_in blocks are padding, not scales
      loaded = map({loaded, k.iota({rowsIn, colsIn}, 1)}, DType::I8, [&](const std::vector<Scalar> &s) {
        Scalar block = s[1] + s[1].index(b[1] * colsIn);
        return select(block < s[1].constantI32(kbIn), s[0], s[0].zero(DType::I8));
      });
    Tile scales = expand2(c.inPackedSf ? ue8m0ToF32(loaded) : infinityUnlessPowerOfTwo(loaded), c.inBlockM, c.inBlockK);
    // Scales are powers of two (or 0): the largest has the largest exponent.
    Tile largest = reduceMax2(scales, c.outBlockM, c.outBlockK);
    // An exponent of 255 (an infinite or NaN scale, or one that is not a
    // power of two) puts e_out 1000 higher: every present block of the output
    // block is then "too far below" and flags the tile, at no cost per element.
    Tile eOut = map({largest}, DType::I32, [](auto &s) {
      Scalar e = exponentOf(s[0]), zero = s[0].constantI32(0);
      return max(e - s[0].constantI32(6), zero) + max(e - s[0].constantI32(254), zero) * s[0].constantI32(1000);
    });
    Tile sfTile = map({eOut}, DType::F32, [](auto &e) { return (e[0] << 23).bitsAsF32(); });
    Index sfRow = b[0] * (bm / c.outBlockM), sfCol = b[1] * (bk / c.outBlockK);
    if (c.outPackedSf)
      k.store(sfOut, {sfRow, sfCol}, ue8m0Bytes(sfTile), /*splitLast=*/4);
    else
      k.store(sfOut, {sfRow, sfCol}, sfTile);
    // Per element: the exponent shift e_in - e_out (for a zero scale -1000:
    // the values become +-0, as multiplied by 0), and whether its block lies
    // too far below (e_in + 5 < e_out).
    Tile eOutAll = expand2(eOut, c.outBlockM, c.outBlockK);
    Tile shift = map({scales, eOutAll}, DType::I32, [](auto &s) {
      Scalar eIn = exponentOf(s[0]), present = min(eIn, s[0].constantI32(1));
      return present * (eIn - s[1] + s[0].constantI32(1000)) - s[0].constantI32(1000);
    });
    Tile tooFar = map({scales, eOutAll}, DType::F32, [](auto &s) {
      Scalar eIn = exponentOf(s[0]), one = s[0].constantI32(1), zero = s[0].constantI32(0);
      Scalar beyond = min(max(s[1] - eIn - s[0].constantI32(5), zero), one);
      return (beyond * min(eIn, one) * s[0].constantI32(0x3F800000)).bitsAsF32(); // 1.0 or 0.0
    });
    k.store(violations, {b[0], b[1]}, reduce_max(reduce_max(tooFar, 1), 0));
    k.store(out, {row, col}, e2m1_to_e4m3(codes, shift));
  });
  return k.finish();
}

} // namespace tk::kernels::quant
