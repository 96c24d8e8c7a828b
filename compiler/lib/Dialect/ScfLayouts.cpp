//===- ScfLayouts.cpp - layout rules of loops that carry fragments --------===//
//
// scf.for and tile.pipeline carry fragments from one iteration to the next
// (accumulators). They take part in layout inference through external
// models of LayoutInferenceOpInterface (one set of rules for both loops), so
// no pass has to recognize them: a carried fragment has one layout, its
// initial value's (or, where nothing asks one of it, the layout its body
// computes it in), in the loop's result and in the body's block argument,
// and the value the body yields is moved to that layout (tile.relayout)
// where it has another. scf.if yields fragments the same way: a result
// has one layout, that of its else value where that is laid out before the
// branch (a value carried through unchanged), and each branch's yielded
// value is moved to it.
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

/// What the rules need of a loop: scf.for's and tile.pipeline's accessors.
struct ScfLoop {
  using Op = scf::ForOp;
  using Yield = scf::YieldOp;
  static Carried carried(Op loop, unsigned i) {
    return {loop.getInitArgs()[i], loop.getRegionIterArgs()[i], loop.getResult(i)};
  }
  static OpResult tiedResult(Op loop, OpOperand &operand) { return loop.getTiedLoopResult(&operand); }
  static void setInit(Op loop, unsigned i, Value v) { loop.getInitArgsMutable()[i].set(v); }
  // What the rules of a yield need of its parent: the value whose hint its operand `i` gets, and the value whose
  // layout it must have. scf.yield also ends scf.if's regions: both are then the branch's result.
  static Value hintOf(Operation *parent, unsigned i) {
    if (auto loop = dyn_cast<Op>(parent))
      return loop.getResult(i);
    if (auto branch = dyn_cast<scf::IfOp>(parent))
      return branch.getResult(i);
    return Value(); // tile.parallel, tile.grid: no rules
  }
  static Value layoutSourceOf(Operation *parent, unsigned i) {
    if (auto loop = dyn_cast<Op>(parent))
      return loop.getRegionIterArgs()[i];
    return hintOf(parent, i);
  }
};

struct PipelineLoop {
  using Op = PipelineOp;
  using Yield = YieldOp;
  static Carried carried(Op loop, unsigned i) {
    return {loop.getInits()[i], loop.getRegionIterArgs()[i], loop.getResult(i)};
  }
  static OpResult tiedResult(Op loop, OpOperand &operand) {
    const unsigned first = 2, n = operand.getOperandNumber(); // after the bounds
    return n >= first && n - first < loop.getNumResults() ? loop->getResult(n - first) : OpResult();
  }
  static void setInit(Op loop, unsigned i, Value v) { loop.getInitsMutable()[i].set(v); }
  static Value hintOf(Operation *parent, unsigned i) {
    auto loop = dyn_cast<Op>(parent);
    return loop ? loop.getResult(i) : Value();
  }
  static Value layoutSourceOf(Operation *parent, unsigned i) {
    auto loop = dyn_cast<Op>(parent);
    return loop ? loop.getRegionIterArgs()[i] : Value();
  }
};

template <typename L> struct LoopLayouts
    : public LayoutInferenceOpInterface::ExternalModel<LoopLayouts<L>, typename L::Op> {
  // Visited after its body: what the body's ops want of a carried value
  // (it runs every iteration), else what the loop's users want, is asked of
  // the initial value.
  LogicalResult hintOperandLayouts(Operation *op, LayoutInference &inference) const {
    auto loop = cast<typename L::Op>(op);
    for (OpResult res : loop.getResults()) {
      if (!isa<FragmentType>(res.getType()))
        continue;
      Carried c = L::carried(loop, res.getResultNumber());
      if (Attribute h = inference.hint(c.arg) ? inference.hint(c.arg) : inference.hint(res))
        inference.want(c.init, h);
    }
    return success();
  }

  // The initial value's layout.
  FailureOr<Attribute> inferResultLayout(Operation *op, LayoutInference &, OpResult result, Attribute) const {
    Carried c = L::carried(cast<typename L::Op>(op), result.getResultNumber());
    if (Attribute layout = LayoutInference::layoutOf(c.init))
      return layout;
    return op->emitOpError() << "carries fragment " << result.getResultNumber() << " whose initial value has no layout",
           failure();
  }

  Attribute requiredOperandLayout(Operation *op, LayoutInference &inference, OpOperand &operand) const {
    auto loop = cast<typename L::Op>(op);
    OpResult res = L::tiedResult(loop, operand);
    return res && isa<FragmentType>(res.getType()) ? inference.resultLayoutOrDefault(op, res.getResultNumber())
                                                   : Attribute();
  }

  // Once the results have layouts (inferred, or written in the IR): the
  // body's block arguments take them (the forward walk reaches the loop
  // before its body), and an initial value laid out otherwise moves. A
  // carried value nothing asks a layout of (no hint for it inside the loop or
  // after it), whose body only combines it elementwise with values computed
  // there, waits instead: it takes the layout the body computes it in
  // (settleAfterRegions), so that an accumulator of a reduction's results
  // stays in the reduction's layout rather than moving every iteration.
  LogicalResult verifyOperandLayouts(Operation *op, LayoutInference &inference) const {
    auto loop = cast<typename L::Op>(op);
    for (OpResult res : loop.getResults()) {
      auto type = dyn_cast<FragmentType>(res.getType());
      if (!type)
        continue;
      Carried c = L::carried(loop, res.getResultNumber());
      if (waitsForBody(inference, c, res))
        continue; // its block argument stays without a layout until settleAfterRegions
      c.arg.setType(type);
      moveInit(loop, res.getResultNumber(), c, type);
    }
    return success();
  }

  // The carried values that waited (block arguments still without a
  // layout) take the layout their users computed in; those users
  // (elementwise, laid out by their other operands) and the yield are
  // checked again.
  LogicalResult settleAfterRegions(Operation *op, LayoutInference &inference) const {
    auto loop = cast<typename L::Op>(op);
    Operation *yield = op->getRegion(0).front().getTerminator();
    bool settled = false;
    for (OpResult res : loop.getResults()) {
      Carried c = L::carried(loop, res.getResultNumber());
      if (!isa<FragmentType>(res.getType()) || LayoutInference::layoutOf(c.arg))
        continue;
      settled = true;
      // The layout its users computed in (from their other operands; they must agree, as any elementwise
      // operands must); the yield moves a value laid out otherwise, as for any carried value.
      Attribute layout;
      for (Operation *user : c.arg.getUsers())
        if (user != yield && !layout)
          layout = LayoutInference::layoutOf(user->getResult(0));
      auto type = cast<FragmentType>(res.getType()).withLayout(layout);
      res.setType(type);
      c.arg.setType(type);
      moveInit(loop, res.getResultNumber(), c, type);
      for (Operation *user : c.arg.getUsers())
        if (auto rules = dyn_cast<LayoutInferenceOpInterface>(user); rules && user != yield)
          if (failed(rules.verifyOperandLayouts(inference)))
            return failure();
    }
    auto yieldRules = dyn_cast<LayoutInferenceOpInterface>(yield);
    return settled && yieldRules ? yieldRules.verifyOperandLayouts(inference) : success();
  }

private:
  static bool waitsForBody(LayoutInference &inference, Carried c, Value res) {
    // Not where the IR states the layout, nor where a user asks for one.
    if (!inference.inferring() || LayoutInference::layoutOf(c.arg) || inference.hint(c.arg) || inference.hint(res))
      return false;
    auto shape = cast<FragmentType>(c.arg.getType()).getShape();
    bool combined = false; // by at least one elementwise op (a value only yielded keeps its start's layout)
    for (OpOperand &use : c.arg.getUses()) {
      Operation *user = use.getOwner();
      if (user == c.arg.getParentBlock()->getTerminator())
        continue;
      // Elementwise, with another operand of the same shape computed in the body to take the layout from.
      if (!isa<ParallelOp>(user))
        return false;
      bool other = false;
      for (Value v : user->getOperands())
        if (auto ft = dyn_cast<FragmentType>(v.getType()))
          other |= v != c.arg && ft.getShape() == shape && !isa<BlockArgument>(v);
      if (!other)
        return false;
      combined = true;
    }
    return combined;
  }

  static void moveInit(typename L::Op loop, unsigned i, const Carried &c, FragmentType type) {
    if (LayoutInference::layoutOf(c.init) == type.getLayout())
      return;
    OpBuilder b(loop);
    L::setInit(loop, i, RelayoutOp::create(b, loop->getLoc(), type, c.init));
  }
};

template <typename L> struct LoopYieldLayouts
    : public LayoutInferenceOpInterface::ExternalModel<LoopYieldLayouts<L>, typename L::Yield> {
  // Visited before the body's ops: the parent's users' wish for the value.
  LogicalResult hintOperandLayouts(Operation *op, LayoutInference &inference) const {
    for (OpOperand &use : op->getOpOperands())
      if (isa<FragmentType>(use.get().getType()))
        if (Value tied = L::hintOf(op->getParentOp(), use.getOperandNumber()))
          if (Attribute h = inference.hint(tied))
            inference.want(use.get(), h);
    return success();
  }

  Attribute requiredOperandLayout(Operation *op, LayoutInference &, OpOperand &operand) const {
    Value tied = L::layoutSourceOf(op->getParentOp(), operand.getOperandNumber());
    return tied && isa<FragmentType>(operand.get().getType()) ? LayoutInference::layoutOf(tied) : Attribute();
  }

  // The next iteration reads the yielded value as the block argument (a
  // branch's users read it as its result), so it must be laid out as that;
  // where the body computed it otherwise, it moves.
  LogicalResult verifyOperandLayouts(Operation *op, LayoutInference &) const {
    for (OpOperand &use : op->getOpOperands()) {
      auto type = dyn_cast<FragmentType>(use.get().getType());
      Value tied = L::layoutSourceOf(op->getParentOp(), use.getOperandNumber());
      if (!type || !tied)
        continue;
      Attribute want = LayoutInference::layoutOf(tied);
      if (!want || LayoutInference::layoutOf(use.get()) == want)
        continue;
      OpBuilder b(op);
      use.set(RelayoutOp::create(b, op->getLoc(), type.withLayout(want), use.get()));
    }
    return success();
  }
};

/// scf.if's fragment results: the else value's layout where it has one
/// already (made before the branch), else the users' hint, else the default.
struct BranchLayouts : public LayoutInferenceOpInterface::ExternalModel<BranchLayouts, scf::IfOp> {
  FailureOr<Attribute> inferResultLayout(Operation *op, LayoutInference &inference, OpResult result,
                                         Attribute hint) const {
    auto branch = cast<scf::IfOp>(op);
    if (!branch.getElseRegion().empty()) {
      Value other = branch.elseYield().getOperand(result.getResultNumber());
      if (Attribute layout = LayoutInference::layoutOf(other))
        return layout;
    }
    return hint ? hint : inference.defaultLayout(cast<FragmentType>(result.getType()));
  }
};

} // namespace

void registerScfLayoutModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, scf::SCFDialect *) {
    scf::ForOp::attachInterface<LoopLayouts<ScfLoop>>(*ctx);
    scf::YieldOp::attachInterface<LoopYieldLayouts<ScfLoop>>(*ctx);
    scf::IfOp::attachInterface<BranchLayouts>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, TileDialect *) {
    PipelineOp::attachInterface<LoopLayouts<PipelineLoop>>(*ctx);
    YieldOp::attachInterface<LoopYieldLayouts<PipelineLoop>>(*ctx);
  });
}

} // namespace tk::tile
