//===- AssignLayouts.cpp - give every fragment a layout -------------------===//
//
// Ops take part through LayoutInferenceOpInterface only (TileInterfaces.td):
// backwards, each op records the layouts it would like for its operands;
// forwards, each fragment without a layout gets its hint or what its op
// infers; then each op checks its operands. Without inference (the
// ablation), results get their hints-free defaults and an operand laid out
// otherwise than its op requires moves through shared memory first.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {

/// Every fragment operand of `op` whose layout differs from what the op
/// requires goes through a tile.relayout to it (the ablation of inference).
void relayoutOperands(LayoutInference &inference, LayoutInferenceOpInterface op) {
  for (OpOperand &use : op->getOpOperands()) {
    if (!isa<FragmentType>(use.get().getType()))
      continue;
    Attribute want = op.requiredOperandLayout(inference, use);
    if (!want || LayoutInference::layoutOf(use.get()) == want)
      continue;
    OpBuilder b(op);
    auto type = cast<FragmentType>(use.get().getType()).withLayout(want);
    use.set(RelayoutOp::create(b, op->getLoc(), type, use.get()));
  }
}

/// `v` (LayoutInference::recomputable) made again before `user`, laid out
/// as `layout`.
Value recompute(OpBuilder &b, Value v, Attribute layout) {
  Operation *def = v.getDefiningOp();
  IRMapping inputs;
  for (Value in : def->getOperands())
    if (isa<FragmentType>(in.getType()))
      inputs.map(in, recompute(b, in, layout));
  Operation *copy = b.clone(*def, inputs);
  copy->getResult(0).setType(cast<FragmentType>(v.getType()).withLayout(layout));
  return copy->getResult(0);
}

/// An elementwise region's operand laid out otherwise than its result, but
/// made of coordinates alone (a row iota laid out before the reduction it is
/// combined with), is made again in the result's layout instead of being a
/// conflict. Other operands are left to the op's verifier.
void recomputeOperands(ParallelOp op) {
  Attribute want = LayoutInference::layoutOf(op.getResult());
  for (OpOperand &use : op->getOpOperands()) {
    Attribute have = LayoutInference::layoutOf(use.get());
    if (!have || have == want || !LayoutInference::recomputable(use.get()))
      continue;
    OpBuilder b(op);
    use.set(recompute(b, use.get(), want));
  }
}

/// A scatter's index made of coordinates alone (the rows a reduction's
/// results go to) is made again in its value's layout, as an elementwise
/// region's operand is.
void recomputeIndex(LayoutInference &inference, ScatterOp op) {
  OpOperand &index = op.getIndexMutable();
  Attribute want = op.requiredOperandLayout(inference, index);
  if (!want || LayoutInference::layoutOf(index.get()) == want || !LayoutInference::recomputable(index.get()))
    return;
  OpBuilder b(op);
  index.set(recompute(b, index.get(), want));
}

LogicalResult assign(KernelOp kernel, int64_t vectorBytes, bool infer) {
  LayoutInference inference(kernel, vectorBytes, infer);
  if (failed(inference.chooseVector(kernel)))
    return failure();
  if (infer) {
    SmallVector<LayoutInferenceOpInterface> ops;
    // Last to first, a loop after its body: the hints its body's ops give
    // the carried values reach the initial values.
    kernel.walk<WalkOrder::PreOrder>([&](LayoutInferenceOpInterface op) { ops.push_back(op); });
    for (LayoutInferenceOpInterface op : llvm::reverse(ops))
      if (failed(op.hintOperandLayouts(inference)))
        return failure();
  }
  // Pre-order: a loop's carried fragments get their layouts before its body
  // reads them (or wait for it: settled after its regions).
  WalkResult result = kernel->walk([&](Operation *raw, const WalkStage &stage) -> WalkResult {
    auto op = dyn_cast<LayoutInferenceOpInterface>(raw);
    if (stage.isAfterAllRegions() && raw->getNumRegions() && op && failed(op.settleAfterRegions(inference)))
      return WalkResult::interrupt();
    if (!stage.isBeforeAllRegions())
      return WalkResult::advance();
    if (!op) {
      for (Value res : raw->getResults())
        if (isa<FragmentType>(res.getType()))
          return raw->emitOpError() << "computes a fragment but has no layout rules (LayoutInferenceOpInterface)";
      return WalkResult::advance();
    }
    if (!infer)
      relayoutOperands(inference, op);
    for (OpResult res : op->getResults()) {
      auto type = dyn_cast<FragmentType>(res.getType());
      if (!type || type.getLayout())
        continue;
      FailureOr<Attribute> layout = op.inferResultLayout(inference, res, inference.hint(res));
      if (failed(layout))
        return WalkResult::interrupt();
      res.setType(type.withLayout(*layout));
    }
    if (auto parallel = dyn_cast<ParallelOp>(raw); parallel && infer)
      recomputeOperands(parallel);
    if (auto scatter = dyn_cast<ScatterOp>(raw); scatter && infer)
      recomputeIndex(inference, scatter);
    return failed(op.verifyOperandLayouts(inference)) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct TileAssignLayouts : public tk::tile::impl::TileAssignLayoutsBase<TileAssignLayouts> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](KernelOp kernel) {
      if (failed(assign(kernel, vectorBytes, infer)))
        signalPassFailure();
    });
  }
};

} // namespace
