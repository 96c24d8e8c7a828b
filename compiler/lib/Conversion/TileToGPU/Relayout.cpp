//===- Relayout.cpp - tile.relayout through shared memory -----------------===//
//
// A fragment into another layout: every thread writes its elements into a
// shared buffer of the fragment's shape (one thread per group for a reduced
// layout), the block synchronizes, every thread reads the elements of the
// result layout, and the block synchronizes again before the buffer is
// reused. Only the ablations of layout inference and fusion make relayouts
// (design.md, "Ablations that move values through shared memory").
//===----------------------------------------------------------------------===//
#include "FragmentLayouts.h"
#include "ThreadEmitter.h"
#include "tk/compiler/ElementBytes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using tk::tile::FragmentType;
using tk::tile::ReducedLayoutAttr;

namespace tk::compiler {

int64_t relayoutBytes(FragmentType t) {
  Type e = storageType(t.getElementType());
  return t.getNumElements() * elementBytes(e);
}

FailureOr<Value> ThreadEmitter::relayout(tile::RelayoutOp op, Value value) {
  // i1 elements are held as bytes in memory (vectors of i1 are bit-packed).
  auto memoryType = [&](FragmentType t) {
    Type e = storageType(t.getElementType());
    return e.isInteger(1) ? Type(b.getI8Type()) : e;
  };
  Value &scratch = state.relayoutScratch;
  if (!scratch) {
    auto space = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
    scratch = sharedBuffer(MemRefType::get({state.relayoutBytes}, b.getI8Type(), MemRefLayoutAttrInterface(), space));
  }
  FragmentType from = op.getInput().getType(), to = op.getResult().getType();
  Type held = storageType(to.getElementType()), elt = memoryType(to);
  auto bufType = MemRefType::get(to.getShape(), elt, MemRefLayoutAttrInterface(),
                                 cast<MemRefType>(scratch.getType()).getMemorySpace());
  Value buf = memref::ViewOp::create(b, loc, bufType, scratch, index(0), ValueRange{});
  alignment[buf] = 16;
  SmallVector<Value> zeros(to.getRank(), index(0));
  auto withElement = [](Value v, Type e) { return VectorType::get(cast<VectorType>(v.getType()).getShape(), e); };

  if (held != elt)
    value = arith::ExtUIOp::create(b, loc, withElement(value, elt), value);
  if (isa_and_nonnull<ReducedLayoutAttr>(from.getLayout())) {
    FailureOr<Grouping> g = groupingOf(op, from);
    if (failed(g))
      return failure();
    storeReduced(value, buf, zeros, g->g, innerOf(*g));
  } else {
    FailureOr<BlockedLayout> l = blockedOf(op, from);
    if (failed(l))
      return failure();
    store(op, value, buf, zeros, *l);
  }
  gpu::BarrierOp::create(b, loc);
  Value result;
  if (isa_and_nonnull<ReducedLayoutAttr>(to.getLayout())) {
    FailureOr<Grouping> g = groupingOf(op, to);
    if (failed(g))
      return failure();
    result = loadReduced(buf, zeros, g->g, elt, innerOf(*g));
  } else {
    FailureOr<BlockedLayout> l = blockedOf(op, to);
    if (failed(l))
      return failure();
    result = load(op, buf, zeros, *l, elt);
  }
  gpu::BarrierOp::create(b, loc);
  if (held != elt)
    result = arith::TruncIOp::create(b, loc, withElement(result, held), result);
  return result;
}

} // namespace tk::compiler
