//===- ScfLayouts.cpp - layout rules of loops that carry fragments --------===//
//
// scf.for carries fragments from one iteration to the next (accumulators).
// It takes part in layout inference through external models of
// LayoutInferenceOpInterface (upstream's op, tk's rules), so no pass has to
// recognize it: a carried fragment has one layout, its initial value's, in
// the loop's result and in the body's block argument, and the value the body
// yields is moved to that layout (tile.relayout) where it has another.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Dialect/Tile/ScfLayouts.h"
#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::tile {
namespace {

/// The fragment carried in position `i` of `loop`, and where its layout is
/// recorded: the initial value, the block argument, the result.
struct Carried {
  Value init, arg, result;
};

Carried carried(scf::ForOp loop, unsigned i) {
  return {loop.getInitArgs()[i], loop.getRegionIterArgs()[i], loop.getResult(i)};
}

struct ForLayouts : public LayoutInferenceOpInterface::ExternalModel<ForLayouts, scf::ForOp> {
  // Visited after its body: what the body's ops want of a carried value
  // (it runs every iteration), else what the loop's users want, is asked of
  // the initial value.
  LogicalResult hintOperandLayouts(Operation *op, LayoutInference &inference) const {
    auto loop = cast<scf::ForOp>(op);
    for (OpResult res : loop.getResults()) {
      if (!isa<FragmentType>(res.getType()))
        continue;
      Carried c = carried(loop, res.getResultNumber());
      if (Attribute h = inference.hint(c.arg) ? inference.hint(c.arg) : inference.hint(res))
        inference.want(c.init, h);
    }
    return success();
  }

  // The initial value's layout.
  FailureOr<Attribute> inferResultLayout(Operation *op, LayoutInference &, OpResult result, Attribute) const {
    Carried c = carried(cast<scf::ForOp>(op), result.getResultNumber());
    if (Attribute layout = LayoutInference::layoutOf(c.init))
      return layout;
    return op->emitOpError() << "carries fragment " << result.getResultNumber() << " whose initial value has no layout",
           failure();
  }

  Attribute requiredOperandLayout(Operation *op, LayoutInference &inference, OpOperand &operand) const {
    auto loop = cast<scf::ForOp>(op);
    OpResult res = loop.getTiedLoopResult(&operand);
    return res && isa<FragmentType>(res.getType()) ? inference.resultLayoutOrDefault(op, res.getResultNumber())
                                                   : Attribute();
  }

  // Once the results have layouts (inferred, or written in the IR): the
  // body's block arguments take them (the forward walk reaches the loop
  // before its body), and an initial value laid out otherwise moves.
  LogicalResult verifyOperandLayouts(Operation *op, LayoutInference &) const {
    auto loop = cast<scf::ForOp>(op);
    for (OpResult res : loop.getResults()) {
      auto type = dyn_cast<FragmentType>(res.getType());
      if (!type)
        continue;
      Carried c = carried(loop, res.getResultNumber());
      c.arg.setType(type);
      if (LayoutInference::layoutOf(c.init) != type.getLayout()) {
        OpBuilder b(op);
        loop.getInitArgsMutable()[res.getResultNumber()].set(RelayoutOp::create(b, op->getLoc(), type, c.init));
      }
    }
    return success();
  }
};

struct YieldLayouts : public LayoutInferenceOpInterface::ExternalModel<YieldLayouts, scf::YieldOp> {
  static scf::ForOp loopOf(Operation *op) { return dyn_cast<scf::ForOp>(op->getParentOp()); }

  // Visited before the body's ops: the loop's users' wish for the value.
  LogicalResult hintOperandLayouts(Operation *op, LayoutInference &inference) const {
    scf::ForOp loop = loopOf(op);
    if (!loop)
      return success();
    for (OpOperand &use : op->getOpOperands())
      if (isa<FragmentType>(use.get().getType()))
        if (Attribute h = inference.hint(loop.getResult(use.getOperandNumber())))
          inference.want(use.get(), h);
    return success();
  }

  Attribute requiredOperandLayout(Operation *op, LayoutInference &, OpOperand &operand) const {
    scf::ForOp loop = loopOf(op);
    return loop && isa<FragmentType>(operand.get().getType())
               ? LayoutInference::layoutOf(loop.getRegionIterArgs()[operand.getOperandNumber()])
               : Attribute();
  }

  // The next iteration reads the yielded value as the block argument, so it
  // must be laid out as that; where the body computed it otherwise, it moves.
  LogicalResult verifyOperandLayouts(Operation *op, LayoutInference &) const {
    scf::ForOp loop = loopOf(op);
    if (!loop)
      return success();
    for (OpOperand &use : op->getOpOperands()) {
      auto type = dyn_cast<FragmentType>(use.get().getType());
      if (!type)
        continue;
      Attribute want = LayoutInference::layoutOf(loop.getRegionIterArgs()[use.getOperandNumber()]);
      if (!want || LayoutInference::layoutOf(use.get()) == want)
        continue;
      OpBuilder b(op);
      use.set(RelayoutOp::create(b, op->getLoc(), type.withLayout(want), use.get()));
    }
    return success();
  }
};

} // namespace

void registerScfLayoutModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, scf::SCFDialect *) {
    scf::ForOp::attachInterface<ForLayouts>(*ctx);
    scf::YieldOp::attachInterface<YieldLayouts>(*ctx);
  });
}

} // namespace tk::tile
