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
  const bool copy = c.pass == ExpandConfig::Pass::Copy;
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
  k.grid({ceil_div(lines, rows), Dim(ceil_div(c.width, cols))}, [&](const std::vector<Index> &b) {
    Index row = b[0] * rows, col = b[1] * cols, extent = k.index(lines);
    Tile inBlock = k.iota({rows, 1}, 0);
    // A line is one of the tensor's when its coordinate is below the
    // extent (tiles past the end read zeros, which would name position 0).
    auto inside = [&](const Scalar &i) { return i < i.index(extent) - i.index(row); };
    if (copy) {
      Tile value = k.load(*x, {row, col}, {rows, cols});
      for (int64_t s = 0; s < c.topk; ++s) {
        Tile p = k.load(*pos, {row, k.index(s)}, {rows, 1});
        Tile dest = map({p, inBlock}, DType::I32,
                        [&](const std::vector<Scalar> &v) { return select(inside(v[1]), v[0], v[0].constantI32(-1)); });
        writeRows(k, c, out, ld ? &*ld : nullptr, positions ? &*positions : nullptr, dest, col, value);
      }
    } else {
      Tile e = k.load(*experts, {row, k.index(0)}, {rows, 1});
      Tile dest = map({e, inBlock}, DType::I32, [&](const std::vector<Scalar> &v) {
        return select(inside(v[1]) & (v[0] < v[0].constantI32(0)), v[1] + v[1].index(row), v[1].constantI32(-1));
      });
      writeRows(k, c, out, ld ? &*ld : nullptr, positions ? &*positions : nullptr, dest, col,
                zerosLike(expand(dest, 1, cols), c.dtype));
    }
  });
  return k.finish();
}

} // namespace tk::kernels::moe
