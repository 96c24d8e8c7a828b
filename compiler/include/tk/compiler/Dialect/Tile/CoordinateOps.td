//===- CoordinateOps.td - where elements are in their tile --*- tablegen -*-===//
//
// The example of docs/adding_an_op.md: a new op kind lands as this file, its
// verifier and layout rules (lib/Dialect/CoordinateOps.cpp), its GPU and CPU
// patterns (CoordinatePatterns.cpp, CpuCoordinatePatterns.cpp) and one lit
// folder (tests/lit/tile-iota).
//===----------------------------------------------------------------------===//
#ifndef TK_TILE_COORDINATE_OPS_TD
#define TK_TILE_COORDINATE_OPS_TD

include "tk/compiler/Dialect/Tile/TileOpBase.td"

def Tile_IotaOp : Tile_Op<"iota", [Pure, Tile_LayoutRules<["inferResultLayout"]>]> {
  let summary = "The coordinates of a tile's elements along one dimension";
  let description = [{
    `result[i0, ..., in] = i_dim`, as the result's integer type (i32 or
    i64): where each element sits in its tile, e.g. to compare a column
    with a count, or to add a tile's origin to get a tensor index. It has no
    operands: it takes the layout its users want, else that of a fragment an
    elementwise user combines it with (laid out already: made before the
    iota, as the keys dsl/Select.h indexes, e.g. a reduction's result), else
    the default one. Blocked and reduced layouts both lower.
      %c = tile.iota {dim = 1 : i64} : !tile.frag<4x64xi32>
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

#endif
