//===- LayoutInference.cpp - the state layout inference shares with ops ---===//
#include "tk/compiler/Dialect/Tile/LayoutInference.h"
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/ElementBytes.h"
#include "tk/compiler/Layout/LayoutAttrs.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <numeric>

using namespace mlir;

namespace tk::tile {

/// Element bytes of the kernel's main data: the largest fragment it reads
/// from or writes to memory (by elements; the widest element among equally
/// large ones). Each thread owns `vectorBytes` of that element type per
/// chunk, so every warp-wide access of the main data is one contiguous,
/// fully used span: an e4m3 -> f32 kernel sizes chunks by the f32 stores (a
/// chunk of 16 e4m3 codes would make each thread store 64 bytes in pieces
/// that leave half-written sectors behind every warp-wide store). Small side
/// tensors (scale factors) do not count, and narrower accesses of the main
/// data stay contiguous across the warp, only shorter per thread.
static int64_t accessElementBytes(KernelOp kernel) {
  int64_t mainElems = 0, mainBytes = 0;
  auto consider = [&](Type t) {
    auto frag = dyn_cast<FragmentType>(t);
    if (!frag)
      return;
    int64_t elems = frag.getNumElements(), bytes = compiler::elementBytes(frag.getElementType());
    if (elems > mainElems || (elems == mainElems && bytes > mainBytes))
      mainElems = elems, mainBytes = bytes;
  };
  kernel.walk([&](MemoryEffectOpInterface op) {
    // Whole tiles moved between memory and registers at block-uniform
    // addresses: a fragment read from a memref (the first operand), or a
    // fragment (the first operand) written to one (the second). Gathers and
    // element scatters, addressed by fragments, move side data.
    ValueRange in = op->getOperands();
    auto fragments = llvm::count_if(in, [](Value v) { return isa<FragmentType>(v.getType()); });
    if (op.hasEffect<MemoryEffects::Read>() && op->getNumResults() == 1 && fragments == 0 && !in.empty() &&
        isa<MemRefType>(in[0].getType()))
      consider(op->getResult(0).getType());
    if (op.hasEffect<MemoryEffects::Write>() && fragments == 1 && in.size() >= 2 && isa<FragmentType>(in[0].getType()) &&
        isa<MemRefType>(in[1].getType()))
      consider(in[0].getType());
    // Rows stored at data-dependent rows are still whole rows of the main data,
    // and a masked store's value a whole tile.
    if (auto scatter = dyn_cast<ScatterRowsOp>(op.getOperation()))
      consider(scatter.getValue().getType());
    if (auto store = dyn_cast<StoreOp>(op.getOperation()); store && store.getMask())
      consider(store.getValue().getType());
  });
  return mainBytes ? mainBytes : 4;
}

LayoutInference::LayoutInference(KernelOp kernel, int64_t vectorBytes, bool infer)
    : ctx_(kernel.getContext()), infer_(infer), warps_(kernel.getNumWarps()) {
  ScheduleAttr schedule = kernel.getScheduleOrDefault();
  vectorBytes_ = schedule.getMaxAccessBytes() ? std::min(vectorBytes, schedule.getMaxAccessBytes()) : vectorBytes;
  transposeRows_ = schedule.getTransposeRows() ? schedule.getTransposeRows() : 4;
  warpsAlongRows_ = schedule.getWarpsAlongRows();
  vecElems_ = std::max<int64_t>(1, vectorBytes_ / accessElementBytes(kernel));
}

LogicalResult LayoutInference::chooseVector(KernelOp kernel) {
  int64_t multiple = 1;
  Operation *needs = nullptr;
  kernel.walk([&](LayoutInferenceOpInterface op) {
    if (int64_t m = op.vectorMultiple(); m > 1 && multiple % m) {
      multiple = std::lcm(multiple, m);
      needs = op;
    }
  });
  if (int64_t chosen = kernel.getScheduleOrDefault().getVectorElements()) {
    if (chosen % multiple)
      return kernel.emitOpError() << "schedule: vector_elements = " << chosen << " is not a multiple of " << multiple
                                  << ", which " << needs->getName() << " needs";
    vecElems_ = chosen;
    return success();
  }
  vecElems_ = (vecElems_ + multiple - 1) / multiple * multiple;
  return success();
}

Attribute LayoutInference::blocked(ArrayRef<int64_t> shape, int64_t vec, int64_t rowVec) const {
  std::vector<int64_t> s(shape.begin(), shape.end());
  // Wider than 16-byte vectors (sm_100a) halve where they would leave
  // threads idle and the half tiles the shape exactly (the kernels' tiles
  // are sized for 16 bytes: 5 of 48 shipped kernels had half their threads
  // idle on sm_100a). 16-byte targets keep their layouts: their padded ones
  // (the 576-channel rows) have no exact halving.
  return compiler::toAttr(ctx_, vectorBytes_ > 16
                                    ? compiler::chooseUnpaddedBlockedLayout(s, warps_, vec, rowVec, warpsAlongRows_)
                                    : compiler::chooseBlockedLayout(s, warps_, vec, rowVec, warpsAlongRows_));
}

Attribute LayoutInference::blockedExactly(ArrayRef<int64_t> shape, int64_t vec) const {
  std::vector<int64_t> s(shape.begin(), shape.end());
  return compiler::toAttr(ctx_, compiler::chooseBlockedLayout(s, warps_, vec, 1, warpsAlongRows_));
}

Attribute LayoutInference::defaultLayout(FragmentType type) const { return blocked(type.getShape(), vecElems_); }

Attribute LayoutInference::layoutOf(Value v) { return cast<FragmentType>(v.getType()).getLayout(); }

Attribute LayoutInference::hint(Value v) const { return hints_.lookup(v); }

Attribute LayoutInference::layoutOrHint(Value v) const {
  Attribute l = layoutOf(v);
  return l ? l : hint(v);
}

Attribute LayoutInference::layoutOrHintOrDefault(Value v) const {
  Attribute l = layoutOrHint(v);
  return l ? l : defaultLayout(cast<FragmentType>(v.getType()));
}

void LayoutInference::want(Value v, Attribute layout, bool overrides) {
  if (overrides)
    hints_[v] = layout;
  else
    hints_.try_emplace(v, layout);
}

// Bounded: a chain of coordinate arithmetic is short; a long one is not worth recomputing per use.
static bool recomputableWithin(Value v, int depth) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8)
    return false;
  if (isa<IotaOp>(def))
    return true;
  if (auto p = dyn_cast<ParallelOp>(def))
    return llvm::all_of(p.getInputs(), [&](Value in) { return recomputableWithin(in, depth + 1); });
  return false;
}

bool LayoutInference::recomputable(Value v) { return recomputableWithin(v, 0); }

FailureOr<Attribute> LayoutInference::sameShapeOperandLayout(Operation *op, Value result, Attribute hint) const {
  // An operand of the result's shape laid out already decides: the result must share its layout, and a hint
  // that differs (a user's, for a fragment such as a reduction's result that cannot take it) would only make a
  // conflict. An elementwise region prefers an operand that cannot be recomputed: one made of coordinates alone
  // is made again in the layout chosen (AssignLayouts.cpp).
  auto type = cast<FragmentType>(result.getType());
  Attribute first;
  for (Value operand : op->getOperands())
    if (auto ft = dyn_cast<FragmentType>(operand.getType()))
      if (ft.getShape() == type.getShape() && ft.getLayout()) {
        if (!isa<ParallelOp>(op) || !recomputable(operand))
          return ft.getLayout();
        if (!first)
          first = ft.getLayout();
      }
  if (first)
    return first;
  return hint ? hint : defaultLayout(type);
}

void LayoutInference::hintSameShapeOperands(Operation *op) {
  Attribute h = hint(op->getResult(0));
  if (!h)
    return;
  auto shape = cast<FragmentType>(op->getResult(0).getType()).getShape();
  for (Value operand : op->getOperands())
    if (auto ft = dyn_cast<FragmentType>(operand.getType()); ft && ft.getShape() == shape)
      want(operand, h);
}

LogicalResult LayoutInference::verifySameLayouts(Operation *op) {
  Attribute resultLayout = layoutOf(op->getResult(0));
  for (Value operand : op->getOperands()) {
    if (!isa<FragmentType>(operand.getType()))
      continue; // a gather's source tensor
    if (!layoutOf(operand) && isa<BlockArgument>(operand))
      continue; // a loop's deferred carried value: checked when the loop settles it
    if (layoutOf(operand) != resultLayout)
      return conflict(op, operand, [&](InFlightDiagnostic &d) { d << " but the result has layout " << resultLayout; });
  }
  return success();
}

Attribute LayoutInference::resultLayoutOrDefault(Operation *op, unsigned i) const {
  auto type = cast<FragmentType>(op->getResult(i).getType());
  return type.getLayout() ? type.getLayout() : defaultLayout(type);
}

LogicalResult LayoutInference::conflict(Operation *op, Value operand, function_ref<void(InFlightDiagnostic &)> rest) {
  InFlightDiagnostic diag = op->emitOpError() << "layout conflict: operand has layout " << layoutOf(operand);
  rest(diag);
  if (Operation *def = operand.getDefiningOp())
    diag.attachNote(def->getLoc()) << "operand defined here by " << def->getName();
  return failure();
}

} // namespace tk::tile
