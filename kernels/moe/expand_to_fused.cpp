//===- expand_to_fused.cpp ------------------------------------------------===//
#include "kernels/moe/expand_to_fused.h"

#include <cstring>
#include <optional>

namespace tk::kernels::moe {

using namespace tk::dsl;

/// A tile of zeros of `dtype`, shaped like `like`.
static Tile zerosLike(const Tile &like, DType dtype) {
  return map({like}, dtype, [dtype](const std::vector<Scalar> &v) { return v[0].zero(dtype); });
}

/// Writes `value` ([rows, cols], row i to position dest[i], nothing for -1)
/// at columns [col, col + cols): a row scatter, or element by element into
/// column-major storage (j * ld + p).
static void writeRows(KernelBuilder &k, const ExpandConfig &c, const Tensor &out, const Uniform *ld,
                      const Uniform *positions, const Tile &dest, const Index &col, const Tile &value) {
  if (!c.colMajor) {
    k.scatterRows(out, dest, col, value);
    return;
  }
  const int64_t rows = value.shape()[0], cols = value.shape()[1];
  Tile wide = expand(dest, 1, cols);
  Tile at = map({wide, k.iota({rows, cols}, 1)}, DType::I32, [&](const std::vector<Scalar> &v) {
    Scalar none = v[0].constantI32(-1);
    Scalar j = v[1] + v[0].index(col);
    // A position past M would land in the storage's unused
    // columns or the next column.
    Scalar outside = (v[0] < v[0].constantI32(0)) | (v[0] >= v[0].uniform(*positions));
    return select(outside, none, j * v[0].uniform(*ld) + v[0]);
  });
  k.scatter(out, at, value);
}

BuiltKernel buildExpand(mlir::MLIRContext &ctx, const ExpandConfig &c) {
  if (c.width < 1 || (c.pass == ExpandConfig::Pass::Copy && c.topk < 1))
    throw std::invalid_argument("expand_to_fused: needs a width and K >= 1");
  const int64_t rows = c.rowsPerBlock(), cols = std::min(c.colsPerBlock(), c.width);
  const bool copy = c.pass == ExpandConfig::Pass::Copy, merged = copy && c.merged;
  KernelBuilder k(ctx,
                  merged ? "expand_to_fused_merged"
                  : copy ? "expand_to_fused"
                         : "expand_to_fused_padding",
                  c.numThreads());
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  Dim lines = k.dynamic(copy ? "tokens" : "positions");
  std::optional<Tensor> x, pos, experts;
  if (copy) {
    x = k.input("x", {lines, c.width}, c.dtype, {}, c.alignBytes);
    pos = k.input("token_topk_to_pos", {lines, c.topk}, DType::I32);
  }
  // Merged, the padding blocks gather it by a position they compute (a block's rows start past the copy blocks').
  Dim mapped = k.dynamic("mapped"); // pos_to_expert's length, M
  if (merged)
    experts = k.input("pos_to_expert", {mapped}, DType::I32);
  else if (!copy)
    experts = k.input("pos_to_expert", {lines, 1}, DType::I32);
  Tensor out = c.colMajor
                   ? k.output("out", {k.dynamic("storage")}, c.dtype)
                   : k.output("out", {copy ? k.dynamic("positions") : lines, c.width}, c.dtype, {}, c.alignBytes);
  std::optional<Uniform> ld, positions;
  if (c.colMajor) {
    ld = k.scalarInput("ld", DType::I32);
    positions = k.scalarInput("positions", DType::I32);
  }
  const Uniform *ldArg = ld ? &*ld : nullptr, *positionsArg = positions ? &*positions : nullptr;
  // Token rows [row, row + rows) copied to their slots' positions; `inBlock` the rows' coordinates in the block.
  auto copyRows = [&](const Index &row, const Index &col, const Index &extent, const Tile &inBlock) {
    Tile value = k.load(*x, {row, col}, {rows, cols});
    for (int64_t s = 0; s < c.topk; ++s) {
      Tile p = k.load(*pos, {row, k.index(s)}, {rows, 1});
      // A token is one of the tensor's when its row is below the extent (tiles past the end read zeros, which
      // would name position 0).
      Tile dest = map({p, inBlock}, DType::I32, [&](const std::vector<Scalar> &v) {
        return select(v[1] < v[1].index(extent) - v[1].index(row), v[0], v[0].constantI32(-1));
      });
      writeRows(k, c, out, ldArg, positionsArg, dest, col, value);
    }
  };
  const Dim colBlocks = Dim(ceil_div(c.width, cols));
  if (merged) {
    // One launch: blocks [0, tokenBlocks) copy, the rest zero padding; each branch is the whole block's.
    const Dim tokenBlocks = ceil_div(lines, rows);
    k.grid({tokenBlocks + ceil_div(mapped, rows), colBlocks}, [&](const std::vector<Index> &b) {
      Index col = b[1] * cols, extent = k.index(lines), firstPadding = k.index(tokenBlocks);
      Tile inBlock = k.iota({rows, 1}, 0);
      auto flag = [&](bool copying) {
        return map({k.iota({1, 1}, 0)}, DType::I32, [&](const std::vector<Scalar> &v) {
          Scalar copies = v[0].index(b[0]) < v[0].index(firstPadding);
          return select(copying ? copies : !copies, v[0].constantI32(1), v[0].constantI32(0));
        });
      };
      k.when(flag(true), {}, [&](const std::vector<Tile> &) -> std::vector<Tile> {
        copyRows(b[0] * rows, col, extent, inBlock);
        return {};
      });
      k.when(flag(false), {}, [&](const std::vector<Tile> &) -> std::vector<Tile> {
        Tile p = map({inBlock}, DType::I32, [&](const std::vector<Scalar> &v) {
          return v[0] + (v[0].index(b[0]) - v[0].index(firstPadding)) * v[0].constantI32(rows);
        });
        // Past the end of pos_to_expert a position gathers 0: not padding, nothing written.
        Tile e = k.gather(*experts, p);
        Tile dest = map({p, e}, DType::I32, [&](const std::vector<Scalar> &v) {
          return select(v[1] < v[1].constantI32(0), v[0], v[0].constantI32(-1));
        });
        writeRows(k, c, out, ldArg, positionsArg, dest, col, zerosLike(expand(dest, 1, cols), c.dtype));
        return {};
      });
    });
    return k.finish();
  }
  k.grid({ceil_div(lines, rows), colBlocks}, [&](const std::vector<Index> &b) {
    Index row = b[0] * rows, col = b[1] * cols, extent = k.index(lines);
    Tile inBlock = k.iota({rows, 1}, 0);
    if (copy) {
      copyRows(row, col, extent, inBlock);
      return;
    }
    // A line is one of the tensor's when its coordinate is below the extent (tiles past the end read zeros, which
    // would look like an expert).
    Tile e = k.load(*experts, {row, k.index(0)}, {rows, 1});
    Tile dest = map({e, inBlock}, DType::I32, [&](const std::vector<Scalar> &v) {
      return select((v[1] < v[1].index(extent) - v[1].index(row)) & (v[0] < v[0].constantI32(0)),
                    v[1] + v[1].index(row), v[1].constantI32(-1));
    });
    writeRows(k, c, out, ldArg, positionsArg, dest, col, zerosLike(expand(dest, 1, cols), c.dtype));
  });
  return k.finish();
}

} // namespace tk::kernels::moe
