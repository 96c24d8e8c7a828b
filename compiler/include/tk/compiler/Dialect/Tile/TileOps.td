//===- TileOps.td - operations of the tile dialect -------------*- tablegen -*-===//
//
// The root of the dialect's op definitions; one file per family of ops.
//===----------------------------------------------------------------------===//
#ifndef TK_TILE_OPS_TD
#define TK_TILE_OPS_TD

include "tk/compiler/Dialect/Tile/StructureOps.td"
include "tk/compiler/Dialect/Tile/MemoryOps.td"
include "tk/compiler/Dialect/Tile/ComputeOps.td"
include "tk/compiler/Dialect/Tile/EncodingOps.td"
include "tk/compiler/Dialect/Tile/CoordinateOps.td"

#endif
