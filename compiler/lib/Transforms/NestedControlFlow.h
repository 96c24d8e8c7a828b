//===- NestedControlFlow.h - scf.for / scf.if around tile ops --------------===//
//
// Shared by tile-lower-to-gpu and tile-lower-to-cpu: a loop or branch whose
// regions hold tile ops is rebuilt on the mapped operands, and its blocks are
// lowered by the pass's own block lowering.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace tk::compiler {

/// Lowers `op` when it is an scf.for or scf.if holding tile ops: the same op
/// on the operands `map` gives, each block through `lowerBlock(Block &)`
/// (which emits at `b`'s insertion point). Loops carry no values and
/// branches yield none (an error otherwise). std::nullopt when `op` is not
/// such an op.
template <typename LowerBlock>
std::optional<mlir::LogicalResult> lowerNestedControlFlow(mlir::Operation &op, mlir::OpBuilder &b,
                                                          mlir::Location loc, mlir::IRMapping &map,
                                                          LowerBlock lowerBlock) {
  using namespace mlir;
  if (!isa<scf::ForOp, scf::IfOp>(op) || !tile::holdsTileOps(op))
    return std::nullopt;
  OpBuilder::InsertionGuard guard(b);
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    if (loop.getNumRegionIterArgs())
      return op.emitOpError() << "holds tile ops and carries values; loops around tile ops carry none";
    auto lowered = scf::ForOp::create(b, loc, map.lookup(loop.getLowerBound()), map.lookup(loop.getUpperBound()),
                                      map.lookup(loop.getStep()));
    b.setInsertionPoint(lowered.getBody()->getTerminator());
    map.map(loop.getInductionVar(), lowered.getInductionVar());
    return lowerBlock(*loop.getBody());
  }
  auto branch = cast<scf::IfOp>(op);
  if (branch.getNumResults())
    return op.emitOpError() << "holds tile ops and has results; branches around tile ops yield none";
  auto lowered = scf::IfOp::create(b, loc, map.lookup(branch.getCondition()), branch.elseBlock() != nullptr);
  b.setInsertionPoint(lowered.thenBlock()->getTerminator());
  if (failed(lowerBlock(*branch.thenBlock())))
    return failure();
  if (!branch.elseBlock())
    return success();
  b.setInsertionPoint(lowered.elseBlock()->getTerminator());
  return lowerBlock(*branch.elseBlock());
}

} // namespace tk::compiler
