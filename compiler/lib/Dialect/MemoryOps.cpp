//===- MemoryOps.cpp - memory, copies and barriers: verifiers ===//
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "OpHelpers.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tk::tile;


LogicalResult InitBarriersOp::verify() {
  MemRefType t = getBarriers().getType();
  if (t.getRank() != 1 || !t.getElementType().isInteger(64))
    return emitOpError() << "mbarriers are a 1-D buffer of i64, got " << t;
  if (getCount() < 1 || getCount() > (1 << 20) - 1)
    return emitOpError() << "arrival count must be 1 to 2^20 - 1, got " << getCount();
  return success();
}

LogicalResult WaitCopiesOp::verify() {
  if (getPending() < 0 || getPending() > 8)
    return emitOpError() << "pending must be 0 to 8 groups, got " << getPending();
  return success();
}

//===----------------------------------------------------------------------===//
// Memory ops
//===----------------------------------------------------------------------===//

static bool isSharedMemRef(MemRefType type) {
  if (auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace()))
    return space.getValue() == gpu::AddressSpace::Workgroup;
  return false;
}

LogicalResult AllocOp::verify() {
  if (!isSharedMemRef(getBuffer().getType()))
    return emitOpError() << "tile buffers live in shared memory: the memref needs "
                            "#gpu.address_space<workgroup>, got "
                         << getBuffer().getType();
  return success();
}

/// Common checks of a fragment <-> memref access at `indices`.
static LogicalResult verifyAccess(Operation *op, FragmentType frag, MemRefType mem, size_t numIndices) {
  if (mem.getRank() != frag.getRank())
    return op->emitOpError() << "fragment rank " << frag.getRank() << " does not match memref rank "
                             << mem.getRank();
  if (numIndices != (size_t)mem.getRank())
    return op->emitOpError() << "expected " << mem.getRank() << " indices, got " << numIndices;
  if (frag.getElementType() != mem.getElementType())
    return op->emitOpError() << "fragment element type " << frag.getElementType()
                             << " does not match memref element type " << mem.getElementType();
  return success();
}

/// The rules of split_last accesses (tile.load / tile.store).
static LogicalResult verifySplitAccess(Operation *op, int64_t split, FragmentType frag, MemRefType mem,
                                       size_t numIndices) {
  if (split <= 0)
    return op->emitOpError() << "split_last must be positive, got " << split;
  if (mem.getRank() != frag.getRank() + 1 || numIndices != (size_t)frag.getRank())
    return op->emitOpError() << "with split_last, the memref has one more dimension than the fragment and the "
                                "indices address the fragment's "
                             << frag.getRank() << " dimensions";
  if (frag.getElementType() != mem.getElementType())
    return op->emitOpError() << "fragment element type " << frag.getElementType()
                             << " does not match memref element type " << mem.getElementType();
  return success();
}

LogicalResult LoadOp::verify() {
  if (auto split = getSplitLast())
    return verifySplitAccess(*this, *split, getResult().getType(), getSource().getType(), getIndices().size());
  return verifyAccess(*this, getResult().getType(), getSource().getType(), getIndices().size());
}


namespace {
/// What gather, gather_rows and scatter check alike, with the names their
/// messages use: i32 indices, the moved elements of the tensor's type and,
/// for the gathers, the result laid out like the indices.
struct IndexedAccess {
  const char *indices;   ///< "index elements", "row indices"
  const char *indexNoun; ///< "index", "row-index fragment"
  const char *moved;     ///< "result", "value"
};

LogicalResult verifyIndexed(Operation *op, const IndexedAccess &names, FragmentType index, FragmentType moved,
                            MemRefType mem, bool sameLayout) {
  if (!index.getElementType().isInteger(32))
    return op->emitOpError() << names.indices << " must be i32, got " << index.getElementType();
  if (sameLayout && index.getShape() != moved.getShape())
    return op->emitOpError() << "the result has the " << names.indexNoun << "'s shape";
  if (moved.getElementType() != mem.getElementType())
    return op->emitOpError() << "the " << names.moved << "'s element type " << moved.getElementType()
                             << " must be the tensor's, " << mem.getElementType();
  if (sameLayout && !layoutsCompatible(index.getLayout(), moved.getLayout()))
    return op->emitOpError() << "the result has the " << names.indexNoun << "'s layout";
  return success();
}
} // namespace

LogicalResult GatherOp::verify() {
  MemRefType mem = getSource().getType();
  if (mem.getRank() != 1)
    return emitOpError() << "gathers from a 1-D tensor, got rank " << mem.getRank();
  return verifyIndexed(*this, {"index elements", "index", "result"}, getIndex().getType(), getResult().getType(), mem,
                       /*sameLayout=*/true);
}

LogicalResult GatherRowsOp::verify() {
  MemRefType mem = getSource().getType();
  if (mem.getRank() != 2 || getResult().getType().getRank() != 2)
    return emitOpError() << "gathers rows of a 2-D tensor into a 2-D tile";
  return verifyIndexed(*this, {"row indices", "row-index fragment", "result"}, getRows().getType(),
                       getResult().getType(), mem, /*sameLayout=*/true);
}

LogicalResult ScatterOp::verify() {
  MemRefType mem = getDest().getType();
  FragmentType value = getValue().getType(), index = getIndex().getType();
  if (mem.getRank() != 1)
    return emitOpError() << "scatters into a 1-D tensor, got rank " << mem.getRank();
  if (index.getShape() != value.getShape())
    return emitOpError() << "the index fragment has the value's shape: " << index << " against " << value;
  if (getAdd() && !isa<IntegerType>(value.getElementType()))
    return emitOpError() << "add needs integer elements (a float sum would depend on the order of the blocks), got "
                         << value.getElementType();
  return verifyIndexed(*this, {"index elements", "index", "value"}, index, value, mem, /*sameLayout=*/false);
}

LogicalResult ScatterRowsOp::verify() {
  MemRefType mem = getDest().getType();
  if (mem.getRank() != 2 || getValue().getType().getRank() != 2)
    return emitOpError() << "scatters rows of a 2-D tile into a 2-D tensor";
  if (getRows().getType().getShape() != getValue().getType().getShape())
    return emitOpError() << "the row-index fragment has the value's shape";
  return verifyIndexed(*this, {"row indices", "row-index fragment", "value"}, getRows().getType(),
                       getValue().getType(), mem, /*sameLayout=*/false);
}

LogicalResult StoreOp::verify() {
  FragmentType frag = getValue().getType();
  MemRefType mem = getDest().getType();
  if (getAtomicAdd() && getSplitLast())
    return emitOpError() << "atomic_add does not combine with split_last";
  if (getAtomicAdd() && !isa<IntegerType, Float32Type>(frag.getElementType()))
    return emitOpError() << "atomic_add needs integer or f32 elements, got " << frag.getElementType();
  if (Value mask = getMask()) {
    auto type = cast<FragmentType>(mask.getType());
    if (!isa<IntegerType>(type.getElementType()))
      return emitOpError() << "the mask holds integers (nonzero: write), got " << type.getElementType();
    if (type.getShape() != frag.getShape())
      return emitOpError() << "the mask has the value's shape: " << type << " against " << frag;
    if (getAtomicAdd() || getSplitLast())
      return emitOpError() << "a mask does not combine with atomic_add or split_last";
  }
  if (auto split = getSplitLast())
    return verifySplitAccess(*this, *split, frag, mem, getIndices().size());
  return verifyAccess(*this, frag, mem, getIndices().size());
}

LogicalResult CopyOp::verify() {
  MemRefType src = getSource().getType(), dst = getDest().getType();
  if (getBarriers() && !getAsync())
    return emitOpError() << "a copy that signals an mbarrier must be async";
  if (getBarriers() && (cast<MemRefType>(getBarriers().getType()).getRank() != 1 ||
                        !cast<MemRefType>(getBarriers().getType()).getElementType().isInteger(64)))
    return emitOpError() << "mbarriers are a 1-D buffer of i64, got " << getBarriers().getType();
  if (!isSharedMemRef(dst))
    return emitOpError() << "copy destination must be a shared buffer (workgroup address space)";
  if (src.getRank() != dst.getRank() || getIndices().size() != (size_t)src.getRank())
    return emitOpError() << "source rank, destination rank and index count must agree";
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "copy between different element types " << src.getElementType() << " and "
                         << dst.getElementType();
  return success();
}


//===----------------------------------------------------------------------===//
// Layout rules: a gathered fragment is laid out like its indices.
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::hintOperandLayouts(LayoutInference &inference) {
  inference.hintSameShapeOperands(*this);
  return success();
}
Attribute GatherOp::requiredOperandLayout(LayoutInference &inference, OpOperand &) {
  return inference.resultLayoutOrDefault(*this);
}
LogicalResult GatherOp::verifyOperandLayouts(LayoutInference &) { return LayoutInference::verifySameLayouts(*this); }

LogicalResult GatherRowsOp::hintOperandLayouts(LayoutInference &inference) {
  inference.hintSameShapeOperands(*this);
  return success();
}
Attribute GatherRowsOp::requiredOperandLayout(LayoutInference &inference, OpOperand &) {
  return inference.resultLayoutOrDefault(*this);
}
LogicalResult GatherRowsOp::verifyOperandLayouts(LayoutInference &) {
  return LayoutInference::verifySameLayouts(*this);
}

// A scatter's index (or rows) fragment is laid out like its value: each
// thread writes the elements it holds, at the positions it holds for them.
// With neither laid out nor hinted, both are hinted the value's default.
static void hintIndexLikeValue(LayoutInference &inference, Value value, Value index) {
  Attribute want = inference.layoutOrHint(value);
  if (!want)
    want = inference.layoutOrHint(index);
  if (!want)
    want = inference.defaultLayout(cast<FragmentType>(value.getType()));
  inference.want(value, want);
  inference.want(index, want);
}

static Attribute valueLayoutOrDefault(LayoutInference &inference, Value value) {
  Attribute l = LayoutInference::layoutOf(value);
  return l ? l : inference.defaultLayout(cast<FragmentType>(value.getType()));
}

static LogicalResult verifyIndexLikeValue(Operation *op, Value value, Value index) {
  if (LayoutInference::layoutOf(index) != LayoutInference::layoutOf(value))
    return LayoutInference::conflict(op, index, [&](InFlightDiagnostic &d) {
      d << " but the value it places has layout " << LayoutInference::layoutOf(value);
    });
  return success();
}

LogicalResult ScatterOp::hintOperandLayouts(LayoutInference &inference) {
  if (getValue().getType().getNumElements() > 1) // a single element is written by the first thread
    hintIndexLikeValue(inference, getValue(), getIndex());
  return success();
}
Attribute ScatterOp::requiredOperandLayout(LayoutInference &inference, OpOperand &operand) {
  if (operand.get() != getIndex() || getValue().getType().getNumElements() == 1)
    return Attribute();
  return valueLayoutOrDefault(inference, getValue());
}
LogicalResult ScatterOp::verifyOperandLayouts(LayoutInference &) {
  if (getValue().getType().getNumElements() == 1)
    return success();
  return verifyIndexLikeValue(*this, getValue(), getIndex());
}

// A store's mask is laid out like its value; an unmasked store asks nothing
// (its value keeps the layout its producer gives it).
LogicalResult StoreOp::hintOperandLayouts(LayoutInference &inference) {
  if (getMask())
    hintIndexLikeValue(inference, getValue(), getMask());
  return success();
}
Attribute StoreOp::requiredOperandLayout(LayoutInference &inference, OpOperand &operand) {
  return getMask() && operand.get() == getMask() ? valueLayoutOrDefault(inference, getValue()) : Attribute();
}
LogicalResult StoreOp::verifyOperandLayouts(LayoutInference &) {
  return getMask() ? verifyIndexLikeValue(*this, getValue(), getMask()) : success();
}

LogicalResult ScatterRowsOp::hintOperandLayouts(LayoutInference &inference) {
  hintIndexLikeValue(inference, getValue(), getRows());
  return success();
}
Attribute ScatterRowsOp::requiredOperandLayout(LayoutInference &inference, OpOperand &operand) {
  return operand.get() == getRows() ? valueLayoutOrDefault(inference, getValue()) : Attribute();
}
LogicalResult ScatterRowsOp::verifyOperandLayouts(LayoutInference &) {
  return verifyIndexLikeValue(*this, getValue(), getRows());
}
