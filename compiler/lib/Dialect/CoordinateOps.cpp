//===- CoordinateOps.cpp - tile.iota: verifier, layout rule ---------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Dialect/Tile/LayoutInference.h"

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

// Without operands to follow: the users' hint; else the layout of a fragment
// of its shape that an elementwise user combines it with, already laid out
// (a coordinate compared with values made before it); else the default.
FailureOr<Attribute> IotaOp::inferResultLayout(LayoutInference &inference, OpResult result, Attribute hint) {
  if (hint)
    return hint;
  for (Operation *user : result.getUsers()) {
    if (!isa<ParallelOp>(user))
      continue;
    for (Value operand : user->getOperands()) {
      auto type = dyn_cast<FragmentType>(operand.getType());
      if (operand == result || !type || type.getShape() != getResult().getType().getShape())
        continue;
      if (Attribute layout = LayoutInference::layoutOf(operand))
        return layout;
    }
  }
  return inference.defaultLayout(getResult().getType());
}
