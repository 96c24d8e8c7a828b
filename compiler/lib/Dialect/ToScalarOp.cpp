//===- ToScalarOp.cpp - a one-element fragment as a block-uniform scalar --===//
//
// tile.to_scalar reads a fragment's only element on every thread. Which
// layouts give every thread that element is decided here, once, for layout
// inference and for the GPU lowering alike.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::tile {

bool everyThreadHolds(FragmentType type) {
  if (type.getNumElements() != 1)
    return false;
  // Peel reductions down to the blocked root, noting the reduced dimensions and the root's shape.
  SmallVector<bool> reducedDim(type.getRank(), false);
  SmallVector<int64_t> rootShape(type.getShape());
  Attribute layout = type.getLayout();
  while (auto reduced = dyn_cast_or_null<ReducedLayoutAttr>(layout)) {
    reducedDim[reduced.getDim()] = true;
    rootShape[reduced.getDim()] *= reduced.getGroup();
    layout = reduced.getParent();
  }
  auto root = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  if (!root || root == type.getLayout())
    return false; // a blocked one-element fragment: one thread holds the element, the others padding
  for (int64_t d = 0; d < type.getRank(); ++d) {
    const int64_t cover = root.getVec()[d] * root.getLanes()[d] * root.getWarps()[d];
    // Along a dimension that was not reduced, a thread past coordinate 0 would hold padding; along a reduced one,
    // a thread whose root elements are all padding is not relied on (conservative: a reduction or a load over the
    // whole of a padded dimension does fill it), and neither is any thread but the first where a group lies
    // within one thread's vector.
    if (reducedDim[d] ? rootShape[d] % cover != 0 : (root.getLanes()[d] != 1 || root.getWarps()[d] != 1))
      return false;
  }
  return true;
}

} // namespace tk::tile

LogicalResult ToScalarOp::verify() {
  FragmentType in = getInput().getType();
  if (in.getNumElements() != 1)
    return emitOpError() << "takes a fragment of one element, got " << in;
  if (in.getElementType() != getType())
    return emitOpError() << "result type " << getType() << " is not the element type of " << in;
  return success();
}

/// A row of one thread per column over the block's warps, reduced along it.
static Attribute replicatedLayout(LayoutInference &inference, FragmentType type) {
  SmallVector<int64_t> row(type.getRank(), 1);
  row.back() = 32 * inference.numWarps();
  Attribute parent = inference.blockedExactly(row, 1);
  return ReducedLayoutAttr::get(inference.context(), parent, type.getRank() - 1, row.back());
}

Attribute ToScalarOp::requiredOperandLayout(LayoutInference &inference, OpOperand &) {
  FragmentType in = getInput().getType();
  return in.getLayout() && everyThreadHolds(in) ? in.getLayout() : replicatedLayout(inference, in);
}

LogicalResult ToScalarOp::verifyOperandLayouts(LayoutInference &inference) {
  FragmentType in = getInput().getType();
  // The one rule, requiredOperandLayout's, also applied where layouts were inferred.
  Attribute want = requiredOperandLayout(inference, getOperation()->getOpOperand(0));
  if (want == in.getLayout())
    return success();
  OpBuilder b(*this);
  getInputMutable().set(RelayoutOp::create(b, getLoc(), in.withLayout(want), getInput()));
  return success();
}
