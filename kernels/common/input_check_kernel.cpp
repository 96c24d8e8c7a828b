//===- input_check_kernel.cpp - the input checks' DSL program -------------===//
//
// Apart from the checks' host side (input_checks.cpp), which a runtime that
// only loads bundled kernels links without the DSL.
//===----------------------------------------------------------------------===//
#include "kernels/common/input_checks.h"

#include <optional>

namespace tk::kernels {

using namespace tk::dsl;

BuiltKernel buildInputCheck(mlir::MLIRContext &ctx, const InputCheckConfig &c) {
  const int64_t rows = c.rowsPerBlock(), width = c.width;
  KernelBuilder k(ctx, "input_check", 128);
  Dim r = k.dynamic("rows"), n = k.dynamic("cols"), gr = k.dynamic("tile_rows"), gc = k.dynamic("tile_cols");
  Tensor x = k.input("x", {r, n}, c.dtype, {kDynamicStride, 1}, c.alignBytes);
  std::optional<Tensor> mask;
  if (c.rowMask)
    mask = k.input("row_mask", {r}, DType::U8);
  Tensor first = k.output("first_bad", {gr, gc}, DType::I64, {}, 8); // rows of any number of tiles
  Uniform lo = k.scalarInput("lo", DType::I64), hi = k.scalarInput("hi", DType::I64),
          numRows = k.scalarInput("rows", DType::I64), numCols = k.scalarInput("cols", DType::I64);
  k.grid({ceil_div(r, rows), ceil_div(n, width)}, [&](const std::vector<Index> &b) {
    Index r0 = b[0] * rows, c0 = b[1] * width;
    Tile row = map({k.iota({rows, width}, 0)}, DType::I32,
                   [&](const std::vector<Scalar> &v) { return v[0] + v[0].index(r0); });
    std::vector<Tile> in = {k.load(x, {r0, c0}, {rows, width}), row, k.iota({rows, width}, 1)};
    if (mask)
      in.push_back(k.gather(*mask, row));
    Tile bad = map(in, DType::I64, [&](const std::vector<Scalar> &v) {
      Scalar r64 = v[1].sextToI64(), c64 = (v[2] + v[2].index(c0)).sextToI64();
      Scalar inside = (r64 < v[1].uniform(numRows)) & (c64 < v[1].uniform(numCols));
      if (mask)
        inside = inside & (v[3] != v[3].zero(DType::U8));
      Scalar wrong = [&] {
        if (c.kind == InputCheckConfig::Kind::Finite) { // exponent all ones: an infinity or a NaN
          Scalar e = v[0].bitsAsI32() & v[0].constantI32(0x7F800000);
          return e == v[0].constantI32(0x7F800000);
        }
        Scalar x64 = c.dtype == DType::I64 ? v[0] : v[0].sextToI64();
        return (x64 < v[0].uniform(lo)) | (x64 >= v[0].uniform(hi));
      }();
      return select(inside & wrong, r64 * v[1].uniform(numCols) + c64, r64.constantI64(kNoBadElement));
    });
    k.store(first, {b[0], b[1]}, reduce_min(reduce_min(bad, 1), 0));
  });
  return k.finish();
}

} // namespace tk::kernels
