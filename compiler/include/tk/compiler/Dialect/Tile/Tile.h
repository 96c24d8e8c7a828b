//===- Tile.h - the tile dialect: types, attributes, ops ------------------===//
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/SymbolTable.h"

#include "tk/compiler/Dialect/Tile/LayoutInference.h"
#include "tk/compiler/Dialect/Tile/TileDialect.h.inc"
#include "tk/compiler/Dialect/Tile/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tk/compiler/Dialect/Tile/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tk/compiler/Dialect/Tile/TileTypes.h.inc"

#include "tk/compiler/Dialect/Tile/TileInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tk/compiler/Dialect/Tile/TileOps.h.inc"

namespace tk::tile {
/// True when a region of `op` holds tile ops (scf.for / scf.if around them).
bool holdsTileOps(mlir::Operation &op);
/// True when `type` has one element and a layout that gives it to every
/// thread of the block (tile.to_scalar reads it there).
bool everyThreadHolds(FragmentType type);
/// Why `threads` cannot be a block's thread count ("" when it can): 32 times a power of two, since a tile's layout
/// spreads over every warp only when its warp counts (powers of two) multiply to the block's. tile.kernel's
/// verifier and the DSL's KernelBuilder (where the author chose the number) both ask.
std::string threadCountError(int64_t threads);
} // namespace tk::tile
