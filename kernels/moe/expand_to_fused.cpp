//===- expand_to_fused.cpp ------------------------------------------------===//
#include "kernels/moe/expand_to_fused.h"
#include "kernels/common/branch_flag.h"

#include <cstring>
#include <functional>
#include <optional>

namespace tk::kernels::moe {

using namespace tk::dsl;

/// A tile of zeros of `dtype`, shaped like `like`.
static Tile zerosLike(const Tile &like, DType dtype) {
  return map({like}, dtype, [dtype](const std::vector<Scalar> &v) { return v[0].zero(dtype); });
}

/// Where rows go: `out` (M, W) row-major, or column-major storage whose
/// element (p, j) is at j * ld + p, with the scalars ld and M.
struct Destination {
  Tensor out;
  bool colMajor = false;
  const Uniform *ld = nullptr, *positions = nullptr;
};

/// Writes `value` ([rows, cols], row i to position dest[i], nothing for -1)
/// at columns [col, col + cols): a row scatter, or element by element into
/// column-major storage (j * ld + p).
static void writeRows(KernelBuilder &k, const Destination &to, const Tile &dest, const Index &col, const Tile &value) {
  if (!to.colMajor) {
    k.scatterRows(to.out, dest, col, value);
    return;
  }
  const int64_t rows = value.shape()[0], cols = value.shape()[1];
  Tile wide = expand(dest, 1, cols);
  Tile at = map({wide, k.iota({rows, cols}, 1)}, DType::I32, [&](const std::vector<Scalar> &v) {
    Scalar none = v[0].constantI32(-1);
    Scalar j = v[1] + v[0].index(col);
    // A position past M would land in the storage's unused
    // columns or the next column.
    Scalar outside = (v[0] < v[0].constantI32(0)) | (v[0] >= v[0].uniform(*to.positions));
    return select(outside, none, j * v[0].uniform(*to.ld) + v[0]);
  });
  k.scatter(to.out, at, value);
}

/// A slot's rows to their positions `dest`; with the schedule's skip (one
/// token per CTA) inside a branch the CTA takes together, so that a slot
/// naming no position (most: other ranks' experts) issues no stores at all
/// instead of predicated-off ones.
static void writeSlot(KernelBuilder &k, const ExpandConfig &c, const Destination &to, const Tile &dest,
                      const Index &col, const Tile &value) {
  if (!c.skip) {
    writeRows(k, to, dest, col, value);
    return;
  }
  Tile named = branchFlag(dest, [](const Scalar &p) { return p >= p.constantI32(0); });
  k.when(named, {}, [&](const std::vector<Tile> &) -> std::vector<Tile> {
    writeRows(k, to, dest, col, value);
    return {};
  });
}

/// A one-element i32 tile, 1 where `holds` of the block's coordinates: a
/// condition for KernelBuilder::when (the whole block branches together).
static Tile blockFlag(KernelBuilder &k, const std::function<Scalar(const Scalar &any)> &holds) {
  return branchFlag(k.iota({1, 1}, 0), holds);
}

/// merged: one launch whose blocks [0, tokenBlocks) copy token rows and the
/// rest zero padding rows (pos_to_expert gathered at the positions they
/// compute: a padding block's rows start past the copy blocks'; pad_rows of
/// them a block, in steps of the tile's rows). With
/// sfWidth, column block 0 of each also moves the rows' scale factors
/// (with_sf in one launch, as TileKernels' kernel).
static BuiltKernel buildMerged(mlir::MLIRContext &ctx, const ExpandConfig &c) {
  const int64_t rows = c.rowsPerBlock(), cols = std::min(c.colsPerBlock(), c.width);
  const bool withSf = c.sfWidth > 0;
  // Scale-factor columns per step: 8 elements per thread, and at least a warp's 32 per row.
  const int64_t sfCols = std::min(c.sfWidth, std::max<int64_t>(32, c.numThreads() * 8 / rows));
  if (c.colMajor && withSf && c.sfColMajor)
    throw std::invalid_argument("expand_to_fused: the merged kernel takes one column-major destination (one ld)");
  KernelBuilder k(ctx, "expand_to_fused_merged", c.numThreads());
  k.allowPaddedStores(); // schedule-sized tiles may run past the row's width or the scale factors'
  Dim tokens = k.dynamic("tokens"), positions = k.dynamic("positions");
  Tensor x = k.input("x", {tokens, c.width}, c.dtype, {}, c.alignBytes);
  std::optional<Tensor> xSf;
  if (withSf)
    xSf = k.input("x_sf", {tokens, c.sfWidth}, c.sfDtype, {}, c.sfAlignBytes);
  Tensor pos = k.input("token_topk_to_pos", {tokens, c.topk}, DType::I32);
  Tensor experts = k.input("pos_to_expert", {positions}, DType::I32);
  auto output = [&](const std::string &name, bool colMajor, int64_t width, DType dtype, int64_t align) {
    return colMajor ? k.output(name, {k.dynamic(name + "_storage")}, dtype)
                    : k.output(name, {positions, width}, dtype, {}, align);
  };
  Destination data{output("out", c.colMajor, c.width, c.dtype, c.alignBytes), c.colMajor};
  std::optional<Destination> sf;
  if (withSf)
    sf = Destination{output("out_sf", c.sfColMajor, c.sfWidth, c.sfDtype, c.sfAlignBytes), c.sfColMajor};
  std::optional<Uniform> ld, m;
  if (c.colMajor || (withSf && c.sfColMajor)) {
    ld = k.scalarInput("ld", DType::I32);
    m = k.scalarInput("M", DType::I32);
    for (Destination *to : {&data, sf ? &*sf : nullptr})
      if (to && to->colMajor)
        to->ld = &*ld, to->positions = &*m;
  }
  const Dim tokenBlocks = ceil_div(tokens, rows);
  const int64_t padRows = c.paddingRowsPerBlock();
  k.grid({tokenBlocks + ceil_div(positions, padRows), Dim(ceil_div(c.width, cols))}, [&](const std::vector<Index> &b) {
    Index col = b[1] * cols, extent = k.index(tokens), firstPadding = k.index(tokenBlocks);
    Tile inBlock = k.iota({rows, 1}, 0);
    auto copies = [&](const Scalar &any) { return any.index(b[0]) < any.index(firstPadding); };
    // The scale factors of the block's rows, moved by column block 0 alone: `body` runs there.
    auto scaleFactors = [&](const std::function<void()> &body) {
      if (!withSf)
        return;
      Tile first = blockFlag(k, [&](const Scalar &any) { return any.index(b[1]) == any.constantI32(0); });
      k.when(first, {}, [&](const std::vector<Tile> &) -> std::vector<Tile> {
        body();
        return {};
      });
    };
    // The rows' destinations, from the rows' coordinates `lines` in the block. The scale factors compute them
    // again from a relayout of those (their tiles want other layouts than the data's).
    Index row = b[0] * rows;
    auto slotDest = [&](int64_t s, const Tile &lines) {
      Tile p = k.load(pos, {row, k.index(s)}, {rows, 1});
      // A token is one of the tensor's when its row is below the extent (tiles past the end read zeros, which
      // would name position 0).
      return map({p, lines}, DType::I32, [&](const std::vector<Scalar> &v) {
        return select(v[1] < v[1].index(extent) - v[1].index(row), v[0], v[0].constantI32(-1));
      });
    };
    // Positions of the padding block's `step`-th rows (padRows / rows steps a block).
    auto paddingDest = [&](const Tile &lines, int64_t step) {
      Tile p = map({lines}, DType::I32, [&](const std::vector<Scalar> &v) {
        Scalar first = v[0] + (v[0].index(b[0]) - v[0].index(firstPadding)) * v[0].constantI32(padRows);
        return step ? first + v[0].constantI32(step * rows) : first;
      });
      // Past the end of pos_to_expert a position gathers 0: not padding, nothing written.
      Tile e = k.gather(experts, p);
      return map({p, e}, DType::I32, [&](const std::vector<Scalar> &v) {
        return select(v[1] < v[1].constantI32(0), v[0], v[0].constantI32(-1));
      });
    };
    k.when(blockFlag(k, copies), {}, [&](const std::vector<Tile> &) -> std::vector<Tile> {
      Tile value = k.load(x, {row, col}, {rows, cols});
      for (int64_t s = 0; s < c.topk; ++s)
        writeSlot(k, c, data, slotDest(s, inBlock), col, value);
      scaleFactors([&] {
        Tile lines = relayout(inBlock);
        std::vector<Tile> dests;
        for (int64_t s = 0; s < c.topk; ++s)
          dests.push_back(slotDest(s, lines));
        for (int64_t j = 0; j < c.sfWidth; j += sfCols) {
          Tile factors = k.load(*xSf, {row, k.index(j)}, {rows, sfCols});
          for (const Tile &dest : dests)
            writeRows(k, *sf, dest, k.index(j), factors);
        }
      });
      return {};
    });
    k.when(blockFlag(k, [&](const Scalar &any) { return !copies(any); }), {},
           [&](const std::vector<Tile> &) -> std::vector<Tile> {
             // Every step's positions gathered before the first store, so that their loads are in flight together.
             std::vector<Tile> dests;
             for (int64_t step = 0; step < padRows / rows; ++step)
               dests.push_back(paddingDest(inBlock, step));
             Tile zeros = zerosLike(expand(dests[0], 1, cols), c.dtype);
             // Each step's stores behind a branch (skip) as a slot's are: most steps find no padding.
             for (const Tile &dest : dests)
               writeSlot(k, c, data, dest, col, zeros);
             scaleFactors([&] {
               std::vector<Tile> sfDests;
               for (int64_t step = 0; step < padRows / rows; ++step)
                 sfDests.push_back(paddingDest(relayout(inBlock), step));
               for (const Tile &sfDest : sfDests)
                 for (int64_t j = 0; j < c.sfWidth; j += sfCols)
                   writeRows(k, *sf, sfDest, k.index(j), zerosLike(expand(sfDest, 1, sfCols), c.sfDtype));
             });
             return {};
           });
  });
  return k.finish();
}

BuiltKernel buildExpand(mlir::MLIRContext &ctx, const ExpandConfig &c) {
  if (c.width < 1 || (c.pass == ExpandConfig::Pass::Copy && c.topk < 1))
    throw std::invalid_argument("expand_to_fused: needs a width and K >= 1");
  const bool copy = c.pass == ExpandConfig::Pass::Copy;
  if (copy && c.merged)
    return buildMerged(ctx, c);
  if (c.sfWidth)
    throw std::invalid_argument("expand_to_fused: scale factors ride along only in the merged kernel");
  const int64_t rows = c.rowsPerBlock(), cols = std::min(c.colsPerBlock(), c.width);
  KernelBuilder k(ctx, copy ? "expand_to_fused" : "expand_to_fused_padding", c.numThreads());
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  Dim lines = k.dynamic(copy ? "tokens" : "positions");
  std::optional<Tensor> x, pos, experts;
  if (copy) {
    x = k.input("x", {lines, c.width}, c.dtype, {}, c.alignBytes);
    pos = k.input("token_topk_to_pos", {lines, c.topk}, DType::I32);
  } else {
    experts = k.input("pos_to_expert", {lines, 1}, DType::I32);
  }
  Tensor out = c.colMajor
                   ? k.output("out", {k.dynamic("storage")}, c.dtype)
                   : k.output("out", {copy ? k.dynamic("positions") : lines, c.width}, c.dtype, {}, c.alignBytes);
  std::optional<Uniform> ld, positions;
  if (c.colMajor) {
    ld = k.scalarInput("ld", DType::I32);
    positions = k.scalarInput("positions", DType::I32);
  }
  const Destination to{out, c.colMajor, ld ? &*ld : nullptr, positions ? &*positions : nullptr};
  k.grid({ceil_div(lines, rows), Dim(ceil_div(c.width, cols))}, [&](const std::vector<Index> &b) {
    Index row = b[0] * rows, col = b[1] * cols, extent = k.index(lines);
    Tile inBlock = k.iota({rows, 1}, 0);
    // A line is one of the tensor's when its coordinate is below the extent (tiles past the end read zeros, which
    // would name position 0 or look like an expert).
    auto inside = [&](const Scalar &i) { return i < i.index(extent) - i.index(row); };
    if (copy) {
      Tile value = k.load(*x, {row, col}, {rows, cols});
      for (int64_t s = 0; s < c.topk; ++s) {
        Tile p = k.load(*pos, {row, k.index(s)}, {rows, 1});
        Tile dest = map({p, inBlock}, DType::I32,
                        [&](const std::vector<Scalar> &v) { return select(inside(v[1]), v[0], v[0].constantI32(-1)); });
        writeSlot(k, c, to, dest, col, value);
      }
    } else {
      Tile e = k.load(*experts, {row, k.index(0)}, {rows, 1});
      Tile dest = map({e, inBlock}, DType::I32, [&](const std::vector<Scalar> &v) {
        return select(inside(v[1]) & (v[0] < v[0].constantI32(0)), v[1] + v[1].index(row), v[1].constantI32(-1));
      });
      writeRows(k, to, dest, col, zerosLike(expand(dest, 1, cols), c.dtype));
    }
  });
  return k.finish();
}

} // namespace tk::kernels::moe
