//===- histogram.cpp ------------------------------------------------------===//
#include "kernels/moe/histogram.h"

#include <optional>

namespace tk::kernels::moe {

using namespace tk::dsl;

static Tile constant(const Tile &like, DType dtype, int64_t value) {
  return map({like}, dtype, [value](const std::vector<Scalar> &v) { return v[0].constantI32(value); });
}

/// fi = (float)(c E) / (float)(N Ka) of an i32 tile of counts: exact integer products, one rounding each, then an
/// IEEE division.
static Tile frequencies(const Tile &counts, const Uniform &experts, const Uniform &slots) {
  return map({counts}, DType::F32, [&](const std::vector<Scalar> &v) {
    Scalar scaled = (v[0].sextToI64() * v[0].uniform(experts)).signedToF32();
    return scaled / v[0].uniform(slots).signedToF32();
  });
}

BuiltKernel buildHistogram(mlir::MLIRContext &ctx, const HistogramConfig &c) {
  const int64_t tile = c.tileElements();
  using S = HistogramConfig::Stage;
  static const char *names[] = {"group_count_zero", "group_count", "aux_fi", "group_count_rows", "group_count_sums"};
  KernelBuilder k(ctx, c.stage == S::RowSums && c.frequency ? "aux_fi_sums" : names[(int)c.stage], c.numThreads());
  applyDependentLaunch(k, c.pdl);
  if (c.stage == S::Zero) {
    Dim g = k.dynamic("groups");
    Tensor counts = k.output("counts", {g}, DType::I32);
    k.grid({ceil_div(g, tile)}, [&](const std::vector<Index> &b) {
      k.store(counts, {b[0] * tile}, constant(k.iota({tile}, 0), DType::I32, 0));
    });
    return k.finish();
  }
  if (c.stage == S::Frequency) {
    Dim e = k.dynamic("experts");
    Tensor counts = k.input("counts", {e}, DType::I32);
    Tensor fi = k.output("fi", {e}, DType::F32);
    Uniform experts = k.scalarInput("experts", DType::I64), slots = k.scalarInput("tokens_times_aux_topk", DType::I64);
    k.grid({ceil_div(e, tile)}, [&](const std::vector<Index> &b) {
      k.store(fi, {b[0] * tile}, frequencies(k.load(counts, {b[0] * tile}, {tile}), experts, slots));
    });
    return k.finish();
  }
  if (c.stage == S::RowSums) {
    // Each CTA sums kRowSumColumns columns down the table, kRowSumRows rows a step (rows past B read 0).
    Dim blocks = k.dynamic("blocks"), g = k.dynamic("groups");
    Tensor table = k.input("table", {blocks, c.width}, DType::I32);
    Tensor out = k.output(c.frequency ? "fi" : "counts", {1, g}, c.frequency ? DType::F32 : DType::I32);
    std::optional<Uniform> experts, slots;
    if (c.frequency)
      experts = k.scalarInput("experts", DType::I64), slots = k.scalarInput("tokens_times_aux_topk", DType::I64);
    k.grid({ceil_div(g, kRowSumColumns)}, [&](const std::vector<Index> &b) {
      Index col = b[0] * kRowSumColumns, zero = k.index(0);
      std::vector<Tile> acc =
          k.loop(zero, k.index(ceil_div(blocks, kRowSumRows)), {k.full({kRowSumRows, kRowSumColumns}, 0, DType::I32)},
                 [&](const Index &i, const std::vector<Tile> &carried) -> std::vector<Tile> {
                   return {carried[0] + k.load(table, {i * kRowSumRows, col}, {kRowSumRows, kRowSumColumns})};
                 });
      Tile total = relayout(reduce_sum(acc[0], 0)); // once per column, as the store wants it
      if (c.frequency)
        total = frequencies(total, *experts, *slots);
      k.store(out, {zero, col}, total);
    });
    return k.finish();
  }
  if (c.bins < 1)
    throw std::invalid_argument("group_count: needs at least one bin");
  Dim n = k.dynamic("ids");
  Tensor ids = k.input("ids", {n}, DType::I64);
  if (c.stage == S::Rows && (c.width < 1 || c.width > c.bins || c.width % kRowSumColumns))
    throw std::invalid_argument("group_count: the table's width must be a multiple of 128 up to the bins");
  // The table's rows are whole multiples of its width: 16-byte stores.
  Tensor counts = c.stage == S::Rows ? k.output("table", {k.dynamic("cells", c.width)}, DType::I32)
                                     : k.output("counts", {k.dynamic("groups")}, DType::I32);
  Uniform groups = k.scalarInput("groups", DType::I64);
  k.grid({ceil_div(n, tile)}, [&](const std::vector<Index> &b) {
    Index origin = b[0] * tile, extent = k.index(n);
    Shared hist = k.shared({c.bins}, DType::I32);
    Tile bin = k.iota({c.bins}, 0);
    k.store(hist, {k.index(0)}, constant(bin, DType::I32, 0));
    k.barrier();
    Tile v = k.load(ids, {origin}, {tile});
    Tile at = map({v, k.iota({tile}, 0)}, DType::I32, [&](const std::vector<Scalar> &s) {
      // Ids past the end read 0; ids outside [0, G) (-1 and any other) are not counted.
      Scalar inside = s[1] < s[1].index(extent) - s[1].index(origin);
      Scalar counted = inside & (s[0] >= s[0].constantI64(0)) & (s[0] < s[0].uniform(groups));
      return select(counted, s[0].truncToI32(), s[1].constantI32(-1));
    });
    k.scatterAdd(hist, at, constant(at, DType::I32, 1));
    k.barrier();
    if (c.stage == S::Rows) { // the row's every column, zeros too: the table needs no zeroing
      k.store(counts, {b[0] * c.width}, k.load(hist, {k.index(0)}, {c.width}));
      return;
    }
    Tile h = k.load(hist, {k.index(0)}, {c.bins});
    // Only bins that counted something: one global atomic each.
    Tile dest = map({h, bin}, DType::I32, [](const std::vector<Scalar> &s) {
      return select(s[0] > s[0].constantI32(0), s[1], s[1].constantI32(-1));
    });
    k.scatterAdd(counts, dest, h);
  });
  return k.finish();
}

} // namespace tk::kernels::moe
