//===- CoordinateOps.cpp - tile.iota: verifier ----------------------------===//
//
// Its layout rules are the interface's defaults (the users' hint, else the
// default blocked layout): an op without operands has nothing to follow.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"

using namespace mlir;
using namespace tk::tile;

LogicalResult IotaOp::verify() {
  FragmentType type = getResult().getType();
  if (getDim() < 0 || getDim() >= type.getRank())
    return emitOpError() << "dim " << getDim() << " out of range for rank " << type.getRank();
  if (!type.getElementType().isInteger(32) && !type.getElementType().isInteger(64))
    return emitOpError() << "coordinates are i32 or i64, got " << type.getElementType();
  return success();
}
