//===- FragmentLayouts.cpp - how a fragment's layout is held per thread ----===//
#include "FragmentLayouts.h"
#include "tk/compiler/Layout/LayoutAttrs.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {

FailureOr<BlockedLayout> blockedOf(Operation *op, FragmentType type) {
  auto attr = dyn_cast_or_null<BlockedLayoutAttr>(type.getLayout());
  if (!attr)
    return op->emitOpError() << "needs a blocked layout on " << type << " (run tile-assign-layouts first)";
  return compiler::toBlockedLayout(attr, type.getShape());
}

FailureOr<Grouping> groupingOf(Operation *op, FragmentType reducedType) {
  auto attr = dyn_cast_or_null<ReducedLayoutAttr>(reducedType.getLayout());
  if (!attr)
    return op->emitOpError() << "needs a reduced layout on " << reducedType;
  auto innerAttr = dyn_cast<ReducedLayoutAttr>(attr.getParent());
  SmallVector<int64_t> rootShape(reducedType.getShape());
  rootShape[attr.getDim()] *= attr.getGroup();
  if (innerAttr)
    rootShape[innerAttr.getDim()] *= innerAttr.getGroup();
  auto root = dyn_cast<BlockedLayoutAttr>(innerAttr ? innerAttr.getParent() : attr.getParent());
  if (!root)
    return op->emitOpError() << "needs a reduced layout of a blocked one, got " << attr;
  BlockedLayout parent = compiler::toBlockedLayout(root, rootShape);
  Grouping out;
  std::string error;
  if (!GroupedReduction::analyze(parent, attr.getDim(), attr.getGroup(), out.g, error))
    return op->emitOpError() << "cannot reduce with layout " << root << ": " << error;
  if (innerAttr) {
    out.inner.emplace();
    if (!GroupedReduction::analyze(parent, innerAttr.getDim(), innerAttr.getGroup(), *out.inner, error))
      return op->emitOpError() << "cannot reduce with layout " << root << ": " << error;
  }
  return out;
}

FailureOr<Grouping> groupingOrSingletons(Operation *op, FragmentType type) {
  if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout()))
    return groupingOf(op, type);
  FailureOr<BlockedLayout> l = blockedOf(op, type);
  if (failed(l))
    return failure();
  Grouping out;
  std::string error;
  if (!GroupedReduction::analyze(*l, l->rank() - 1, 1, out.g, error))
    return op->emitOpError() << "cannot access " << type << " element by element: " << error;
  return out;
}

std::optional<int64_t> slotsPerThread(FragmentType type) {
  if (auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(type.getLayout()))
    return compiler::toBlockedLayout(blocked, type.getShape()).slotsPerThread();
  auto reduced = dyn_cast_or_null<ReducedLayoutAttr>(type.getLayout());
  if (!reduced)
    return std::nullopt;
  auto inner = dyn_cast<ReducedLayoutAttr>(reduced.getParent());
  SmallVector<int64_t> rootShape(type.getShape());
  rootShape[reduced.getDim()] *= reduced.getGroup();
  if (inner)
    rootShape[inner.getDim()] *= inner.getGroup();
  auto root = dyn_cast<BlockedLayoutAttr>(inner ? inner.getParent() : reduced.getParent());
  if (!root)
    return std::nullopt;
  GroupedReduction g;
  std::string error;
  if (!GroupedReduction::analyze(compiler::toBlockedLayout(root, rootShape), reduced.getDim(), reduced.getGroup(), g,
                                 error))
    return std::nullopt;
  return g.reducedSlots();
}

} // namespace tk::compiler
