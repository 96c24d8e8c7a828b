//===- TileDialect.cpp - registration of the tile dialect -----------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tk::tile;

#include "tk/compiler/Dialect/Tile/TileDialect.cpp.inc"
#include "tk/compiler/Dialect/Tile/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tk/compiler/Dialect/Tile/TileAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tk/compiler/Dialect/Tile/TileTypes.cpp.inc"

#include "tk/compiler/Dialect/Tile/TileInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tk/compiler/Dialect/Tile/TileOps.cpp.inc"

void TileDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tk/compiler/Dialect/Tile/TileAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tk/compiler/Dialect/Tile/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tk/compiler/Dialect/Tile/TileOps.cpp.inc"
      >();
}
