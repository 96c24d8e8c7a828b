//===- swiglu_per_token_cast.cpp - the kernel, in the DSL -----------------===//
#include "kernels/quant/swiglu_per_token_cast.h"
#include "kernels/quant/scale_rule.h"

#include <cmath>
#include <numeric>
#include <vector>

using namespace tk::dsl;

namespace tk::kernels::quant {

/// Bits per count when a tile's first two clamp counts share one int32 (the
/// tile has fewer than 2^kCountBits values, so each fits).
constexpr int kCountBits = 16;

BuiltKernel buildSwigluPerTokenCast(mlir::MLIRContext &ctx, const SwigluPerTokenCastConfig &c) {
  const int64_t bm = c.tileM(), bk = c.tileK(), g = c.group, h = c.hidden;
  KernelBuilder k(ctx, "swiglu_forward_and_per_token_cast", c.threads());
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  // Whole tiles of rows (the row count a multiple of bm): no tile reaches
  // past the last row, so loads need no row masks.
  Dim rows = c.wholeTiles ? k.dynamic("num_rows", bm) : k.dynamic("num_rows");
  Tensor x = k.input("x", {rows, 2 * h}, c.in, {2 * h, 1}, c.xAlignBytes);
  std::optional<Tensor> posToTokenTopk, weights, posToExpert, counts;
  if (c.weights) { // the row's routing weight: weights.flat[pos_to_token_topk[p]]
    posToTokenTopk = k.input("pos_to_token_topk", {rows, 1}, DType::I32, {1, 1}, 4);
    weights = k.input("topk_weights", {k.dynamic("num_weights")}, DType::F32, {1}, 4);
  }
  if (c.expertMask)
    posToExpert = k.input("pos_to_expert", {rows, 1}, DType::I32, {1, 1}, 4);
  if (c.countClamps)
    counts = k.output("clamped_count", {1, 3}, DType::I64, {3, 1}, 8);
  Tensor out = k.output("out", {rows, h}, DType::F8E4M3, {}, c.outAlignBytes);
  Tensor sf = c.packedSf // byte (i, k) at 4 i + 4 P (k / 4) + k % 4
                  ? k.output("out_sf", {rows, ceilDiv(c.groups(), 4), 4}, DType::I8, {4, kDynamicStride, 1}, 4)
                  : k.output("out_sf", {rows, c.groups()}, DType::F32, {kDynamicStride, kDynamicStride}, 4);

  // Counting (quant.md 4.20), two schedules. By default one tile per block:
  // the tile's three counts are reduced across the block and added with
  // three int64 atomics. With countingBlocksPerSm = k > 0 (the reference's
  // design, k = 4): a persistent grid whose blocks total their counts over
  // their tiles in registers (block totals) and add them once, after their
  // last tile. On the H200 the first ran faster.
  const bool persistentCounts = c.countClamps && c.countingBlocksPerSm > 0;
  const bool packedCounts = c.countClamps && !persistentCounts && bm * bk < (int64_t(1) << kCountBits);
  const std::vector<Dim> tiles = {ceil_div(rows, bm), ceil_div(h, bk)};
  // The count kernel divides its SiLU with div.rn.f32: the guarded
  // multiply-and-correct form (tile-logistic-quotients) was slower there on
  // the H200 (h = 2048: 232.3 -> 241.4 us), faster or equal elsewhere.
  const QuotientForm siluForm = c.countClamps ? QuotientForm::IeeeDiv : QuotientForm::Fast;
  auto castTile = [&](const std::vector<Index> &b) {
    Index row = b[0] * bm, col = b[1] * bk, sfCol = b[1] * (bk / g);
    Tile gate = k.load(x, {row, col}, {bm, bk}), linear = k.load(x, {row, col + h}, {bm, bk});
    // The rows' weights: a gather (an index, then the weight). With clamp
    // counting they, and the experts, are read before the SwiGLU, without
    // it after (A/B on the H200: count row 318.6, 319.9 -> 302.0, 300.4 µs
    // with both read first; the weights-only row 200.9, 200.9 -> 206.8,
    // 207.0, its x loads then waiting behind the index's latency). Read after
    // the SwiGLU, the gather comes after the exponentials' slow-path
    // branches, which the scheduler does not hoist loads across.
    auto readWeight = [&] { return k.gather(*weights, k.load(*posToTokenTopk, {row, k.index(0)}, {bm, 1})); };
    std::optional<Tile> weight, expert;
    if (c.countClamps) {
      if (c.weights)
        weight = readWeight();
      if (c.expertMask)
        expert = expand(k.load(*posToExpert, {row, k.index(0)}, {bm, 1}), 1, bk);
    }
    // Per count: 1 where the unclamped value is past the clamp (rows of a
    // negative expert are not processed).
    auto hit = [&](int which, const std::vector<Scalar> &s) {
      const float cv = *c.clamp;
      Scalar past = which == 0 ? s[0] > s[0].constantF32(cv)
                    : which == 1 ? s[1] > s[1].constantF32(cv)
                                 : s[1] < s[1].constantF32(-cv);
      if (s.size() > 2)
        past = past & (s[2] >= s[2].constantI32(0));
      return select(past, s[0].constantI32(1), s[0].constantI32(0));
    };
    std::vector<Tile> in;
    if (c.countClamps) {
      in = {gate.to(DType::F32), linear.to(DType::F32)};
      if (expert)
        in.push_back(*expert);
    }
    std::vector<Tile> hits; // the persistent schedule's, one tile per count
    // A tile's int32 total over both dimensions ([1, 1]) and its addition to
    // count `which`.
    auto tileTotal = [](const Tile &t) { return reduce_sum(reduce_sum(t, /*dim=*/1), /*dim=*/0); };
    auto addCount = [&](int which, const Tile &total) {
      k.atomicAdd(*counts, {k.index(0), k.index(which)},
                  map({total}, DType::I64, [](const std::vector<Scalar> &s) { return s[0].sextToI64(); }));
    };
    if (packedCounts) {
      // This tile's three counts, added now, in two block reductions of
      // int32: the first two counts as 16-bit fields of one word (the tile
      // has fewer than 2^16 values), the third alone. All three as 21-bit
      // fields of an int64 took one reduction, but 64-bit shifts and adds on
      // every value.
      Tile firstTwo = tileTotal(map(in, DType::I32, [&](const std::vector<Scalar> &s) {
        return hit(0, s) + (hit(1, s) << kCountBits);
      }));
      Tile third = tileTotal(map(in, DType::I32, [&](const std::vector<Scalar> &s) { return hit(2, s); }));
      for (int which = 0; which < 2; ++which)
        addCount(which, map({firstTwo}, DType::I32, [&](const std::vector<Scalar> &s) {
                   // Both fields unsigned: the high one may reach bit 31.
                   return (which == 0 ? s[0] : s[0] >> kCountBits) & s[0].constantI32((1 << kCountBits) - 1);
                 }));
      addCount(2, third);
    } else if (c.countClamps) {
      for (int which = 0; which < 3; ++which) {
        hits.push_back(map(in, DType::I32, [&](const std::vector<Scalar> &s) { return hit(which, s); }));
        if (!persistentCounts) // this tile's count, added now
          addCount(which, tileTotal(hits.back()));
      }
      if (!persistentCounts)
        hits.clear();
    }
    // The SwiGLU after the counts (div.rn.f32 for the SiLU in
    // both: the count row 240.4 -> 232.3 us; with the guarded SiLU, counts
    // taken after it kept the unclamped inputs live across its branch, 78
    // registers against 64).
    Tile y = swigluForward(gate, linear, c.clamp, siluForm);
    if (c.weights)
      y = y * expand(weight ? *weight : readWeight(), 1, bk);
    Tile amax = reduce_absmax(y, /*dim=*/1, g);
    auto [scale, inv] = scaleRule(amax, Format::E4M3, c.roundSf, c.sfClampBits);
    if (c.packedSf)
      k.store(sf, {row, sfCol}, ue8m0Bytes(scale), /*splitLast=*/4);
    else
      k.store(sf, {row, sfCol}, scale);
    k.store(out, {row, col}, (y * expand(inv, 1, g)).to(DType::F8E4M3));
    return hits;
  };
  if (persistentCounts) {
    std::vector<Total> counted =
        k.gridWithTotals(c.countingBlocksPerSm, tiles, {DType::I64, DType::I64, DType::I64},
                         castTile);
    for (int which = 0; which < 3; ++which)
      k.atomicAdd(*counts, {k.index(0), k.index(which)}, counted[which]);
  } else {
    k.grid(tiles, [&](const std::vector<Index> &b) { castTile(b); });
  }
  return k.finish();
}

} // namespace tk::kernels::quant
