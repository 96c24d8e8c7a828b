//===- TileOps.cpp - assembly and verifiers of the tile ops ---------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace tk::tile;

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
                                           getArgAttrsAttrName(), getResAttrsAttrName());
}

ScheduleAttr KernelOp::getScheduleOrDefault() {
  if (ScheduleAttr s = getScheduleAttr())
    return s;
  return ScheduleAttr::get(getContext(), 0, 0, 0, false);
}

GridOp KernelOp::getGrid() {
  for (Operation &op : getBody().front())
    if (auto grid = dyn_cast<GridOp>(op))
      return grid;
  return {};
}

LogicalResult KernelOp::verify() {
  int64_t threads = getThreads();
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    return emitOpError() << "threads per block must be a multiple of 32 in [32, 1024], got " << threads;
  if (!getFunctionType().getResults().empty())
    return emitOpError() << "a kernel returns nothing; write results through output tensors";
  for (Type t : getArgumentTypes())
    if (!isa<MemRefType, IndexType, IntegerType, FloatType>(t))
      return emitOpError() << "kernel arguments must be memrefs or scalars, got " << t;
  if (getBody().empty())
    return emitOpError() << "kernel has no body";
  int grids = 0;
  for (Operation &op : getBody().front())
    grids += isa<GridOp>(op);
  if (grids != 1)
    return emitOpError() << "kernel body must hold exactly one tile.grid, found " << grids;
  return success();
}

//===----------------------------------------------------------------------===//
// GridOp
//===----------------------------------------------------------------------===//

ParseResult GridOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> indices;
  SmallVector<OpAsmParser::UnresolvedOperand> sizes;
  if (parser.parseArgumentList(indices, OpAsmParser::Delimiter::Paren) || parser.parseKeyword("in") ||
      parser.parseOperandList(sizes, OpAsmParser::Delimiter::Paren))
    return failure();
  Type index = parser.getBuilder().getIndexType();
  for (auto &arg : indices)
    arg.type = index;
  if (parser.resolveOperands(sizes, index, result.operands))
    return failure();
  if (succeeded(parser.parseOptionalArrow()) &&
      (parser.parseLParen() || parser.parseTypeList(result.types) || parser.parseRParen()))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, indices) || parser.parseOptionalAttrDict(result.attributes))
    return failure();
  GridOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void GridOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getBlockIndices(), p, [&](BlockArgument a) { p << a; });
  p << ") in (" << getSizes() << ") ";
  if (!getTotals().empty())
    p << "-> (" << getTotals().getTypes() << ") ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/!getTotals().empty());
  p.printOptionalAttrDict((*this)->getAttrs());
}

LogicalResult GridOp::verify() {
  size_t n = getSizes().size();
  if (n < 1 || n > 3)
    return emitOpError() << "grid must have 1 to 3 dimensions, got " << n;
  if (getBody().getNumArguments() != n)
    return emitOpError() << "grid has " << n << " sizes but " << getBody().getNumArguments()
                         << " block indices";
  if (auto k = getPersistent(); k && (*k < 1 || *k > 32))
    return emitOpError() << "persistent needs 1 to 32 blocks per SM, got " << *k;
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getValues().size() != getTotals().size())
    return emitOpError() << "has " << getTotals().size() << " block totals but its body yields "
                         << yield.getValues().size() << " values";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(yield.getValues(), getTotals()))) {
    auto [value, total] = pair;
    unsigned width = total.getType().getIntOrFloatBitWidth();
    if (width != 32 && width != 64)
      return emitOpError() << "block totals are 32- or 64-bit integers or floats, got " << total.getType();
    auto frag = dyn_cast<FragmentType>(value.getType());
    Type elt = frag ? frag.getElementType() : Type();
    if (!frag || isa<FloatType>(elt) != isa<FloatType>(total.getType()) ||
        elt.getIntOrFloatBitWidth() > total.getType().getIntOrFloatBitWidth())
      return emitOpError() << "block total " << i << " of type " << total.getType()
                           << " needs a yielded fragment of integers or floats as wide or narrower, got "
                           << value.getType();
  }
  return success();
}

LogicalResult AtomicAddOp::verify() {
  auto dest = cast<MemRefType>(getDest().getType());
  if (dest.getElementType() != getValue().getType())
    return emitOpError() << "adds a " << getValue().getType() << " into elements of " << dest.getElementType();
  if ((int64_t)getIndices().size() != dest.getRank())
    return emitOpError() << "needs " << dest.getRank() << " indices, got " << getIndices().size();
  for (Operation *before = getOperation()->getPrevNode(); before; before = before->getPrevNode())
    if (isa<GridOp>(before))
      return success();
  return emitOpError() << "must come after the kernel's tile.grid (it adds a block total once per block)";
}

bool tk::tile::holdsTileOps(Operation &op) {
  return op
      .walk([&](Operation *inner) {
        return inner != &op && isa<TileDialect>(inner->getDialect()) ? WalkResult::interrupt()
                                                                      : WalkResult::advance();
      })
      .wasInterrupted();
}

//===----------------------------------------------------------------------===//
// PipelineOp
//===----------------------------------------------------------------------===//

ParseResult PipelineOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lb, ub;
  Type index = parser.getBuilder().getIndexType();
  iv.type = index;
  if (parser.parseArgument(iv) || parser.parseEqual() || parser.parseOperand(lb) || parser.parseKeyword("to") ||
      parser.parseOperand(ub) || parser.resolveOperand(lb, index, result.operands) ||
      parser.resolveOperand(ub, index, result.operands) || parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {iv}))
    return failure();
  PipelineOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void PipelineOp::print(OpAsmPrinter &p) {
  p << " " << getInductionVar() << " = " << getLowerBound() << " to " << getUpperBound() << " ";
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/false);
}

/// True when `v` can be computed for another iteration of `loop`: it is the
/// induction variable, defined outside, or made by side-effect-free non-tile
/// ops of the body from such values.
static bool computableAhead(PipelineOp loop, Value v) {
  if (v == loop.getInductionVar() || !loop->isAncestor(v.getParentRegion()->getParentOp()))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() || isa<TileDialect>(def->getDialect()) || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value o) { return computableAhead(loop, o); });
}

LogicalResult PipelineOp::verify() {
  int64_t stages = getStages();
  if (stages < 1 || stages > 8)
    return emitOpError() << "needs 1 to 8 stages, got " << stages;
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError() << "body must have one index argument (the induction variable)";
  llvm::SmallPtrSet<Value, 4> buffers;
  WalkResult walk = getBody().walk([&](CopyOp copy) -> WalkResult {
    if (copy->getBlock() != &body)
      return copy.emitOpError() << "in a tile.pipeline must be a direct child of its body";
    Value dest = copy.getDest();
    auto alloc = dest.getDefiningOp<AllocOp>();
    if (!alloc || (*this)->isAncestor(alloc))
      return copy.emitOpError() << "in a tile.pipeline must copy into a tile.alloc buffer defined outside it";
    if (!buffers.insert(dest).second)
      return copy.emitOpError() << "copies into a buffer another copy of this tile.pipeline fills";
    for (Value v : copy->getOperands())
      if (v != dest && !computableAhead(*this, v))
        return copy.emitOpError() << "source and indices must be computed from the induction variable and values "
                                     "defined outside the tile.pipeline by side-effect-free ops (they are "
                                     "recomputed for iterations ahead)";
    for (OpOperand &use : dest.getUses()) {
      Operation *user = use.getOwner();
      if (user == copy)
        continue;
      if (!(*this)->isAncestor(user))
        return copy.emitOpError() << "buffer is also used outside the tile.pipeline that fills it";
      Operation *inBody = body.findAncestorOpInBlock(*user);
      if (isa<StoreOp, CopyOp>(user))
        return user->emitOpError() << "writes a buffer that a copy of the enclosing tile.pipeline fills";
      if (inBody->isBeforeInBlock(copy))
        return user->emitOpError() << "reads a pipelined buffer before the copy that fills it";
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

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

static bool layoutsCompatible(Attribute a, Attribute b);

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
  if (value.getNumElements() != 1 || index.getNumElements() != 1)
    return emitOpError() << "scatters one element (a block's total): value and index must have one element";
  return verifyIndexed(*this, {"index elements", "index", "value"}, index, value, mem, /*sameLayout=*/false);
}

LogicalResult StoreOp::verify() {
  FragmentType frag = getValue().getType();
  MemRefType mem = getDest().getType();
  if (getAtomicAdd() && getSplitLast())
    return emitOpError() << "atomic_add does not combine with split_last";
  if (getAtomicAdd() && !isa<IntegerType, Float32Type>(frag.getElementType()))
    return emitOpError() << "atomic_add needs integer or f32 elements, got " << frag.getElementType();
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
// Computation
//===----------------------------------------------------------------------===//

/// Two layouts are compatible when either is still unassigned or both are equal.
static bool layoutsCompatible(Attribute a, Attribute b) { return !a || !b || a == b; }

LogicalResult ParallelOp::verify() {
  FragmentType resultType = getResult().getType();
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments() << " arguments for "
                         << getInputs().size() << " inputs";
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    auto type = cast<FragmentType>(input.getType());
    if (type.getShape() != resultType.getShape())
      return emitOpError() << "input " << i << " shape does not match the result shape";
    if (!layoutsCompatible(type.getLayout(), resultType.getLayout()))
      return emitOpError() << "input " << i << " layout " << type.getLayout()
                           << " differs from the result layout " << resultType.getLayout();
    if (body.getArgument(i).getType() != type.getElementType())
      return emitOpError() << "body argument " << i << " has type " << body.getArgument(i).getType()
                           << " but input element type is " << type.getElementType();
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != 1 || yield.getValues()[0].getType() != resultType.getElementType())
    return emitOpError() << "body must yield exactly one " << resultType.getElementType();
  return success();
}

/// Checks the shape relation of a grouped reduce/expand: `wide` has `group`
/// times the extent of `narrow` along `dim`.
static LogicalResult verifyGrouping(Operation *op, FragmentType wide, FragmentType narrow, int64_t dim,
                                    int64_t group) {
  if (wide.getRank() != narrow.getRank())
    return op->emitOpError() << "input and result ranks differ";
  if (dim < 0 || dim >= wide.getRank())
    return op->emitOpError() << "dim " << dim << " out of range for rank " << wide.getRank();
  int64_t size = wide.getShape()[dim];
  if (group <= 0 || size % group != 0)
    return op->emitOpError() << "group " << group << " does not divide dimension " << dim << " of size "
                             << size;
  for (int64_t d = 0; d < wide.getRank(); ++d) {
    int64_t expect = d == dim ? size / group : wide.getShape()[d];
    if (narrow.getShape()[d] != expect)
      return op->emitOpError() << "expected extent " << expect << " along dimension " << d << ", got "
                               << narrow.getShape()[d];
  }
  if (wide.getElementType() != narrow.getElementType())
    return op->emitOpError() << "element types differ";
  return success();
}

LogicalResult ReduceOp::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (failed(verifyGrouping(*this, in, out, getDim(), getGroup())))
    return failure();
  if (getKind() == ReduceKind::absmax && !isa<FloatType>(in.getElementType()))
    return emitOpError() << "absmax needs a float element type, got " << in.getElementType();
  if (getKind() == ReduceKind::sum && isa<FloatType>(in.getElementType()) &&
      in.getElementType().getIntOrFloatBitWidth() < 32)
    return emitOpError() << "a sum of " << in.getElementType()
                         << " elements would round at every step: convert the fragment to f32 first";
  if (isa<Float8E4M3FNType>(in.getElementType()))
    return emitOpError() << "reductions of f8E4M3FN elements are not defined: convert to f32 first";
  if (in.getLayout() && out.getLayout()) {
    auto blocked = dyn_cast<BlockedLayoutAttr>(in.getLayout());
    auto reduced = dyn_cast<ReducedLayoutAttr>(in.getLayout());
    if (!blocked && !(reduced && isa<BlockedLayoutAttr>(reduced.getParent())))
      return emitOpError() << "reduce input must have a blocked layout or a reduced one of a blocked layout, got "
                           << in.getLayout();
    auto expected = ReducedLayoutAttr::get(getContext(), in.getLayout(), getDim(), getGroup());
    if (out.getLayout() != expected)
      return emitOpError() << "result layout " << out.getLayout() << " must be " << expected;
  }
  return success();
}

LogicalResult ExpandOp::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (failed(verifyGrouping(*this, out, in, getDim(), getGroup())))
    return failure();
  if (in.getLayout() && out.getLayout()) {
    auto reduced = dyn_cast<ReducedLayoutAttr>(in.getLayout());
    if (!reduced || reduced.getParent() != out.getLayout() || reduced.getDim() != (int64_t)getDim() ||
        reduced.getGroup() != (int64_t)getGroup())
      return emitOpError() << "input layout " << in.getLayout()
                           << " must be the reduced form of the result layout " << out.getLayout();
  }
  return success();
}

static bool isSupportedFloat(Type t) {
  return t.isF32() || t.isBF16() || t.isF16() || isa<Float8E4M3FNType>(t);
}

LogicalResult ConvertOp::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError() << "convert keeps the shape";
  if (!layoutsCompatible(in.getLayout(), out.getLayout()))
    return emitOpError() << "convert keeps the layout";
  Type from = in.getElementType(), to = out.getElementType();
  if (!isSupportedFloat(from) || !isSupportedFloat(to))
    return emitOpError() << "unsupported conversion from " << from << " to " << to
                         << " (supported: f32, bf16, f16, f8E4M3FN)";
  if (isa<Float8E4M3FNType>(to) && !from.isF32())
    return emitOpError() << "conversion to f8E4M3FN is defined from f32 only, got " << from;
  if (isa<Float8E4M3FNType>(from) && !isa<Float8E4M3FNType>(to) && !to.isF32())
    return emitOpError() << "conversion from f8E4M3FN is defined to f32 only, got " << to;
  return success();
}

LogicalResult PackE2M1Op::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (!in.getElementType().isF32() || !out.getElementType().isInteger(8))
    return emitOpError() << "packs f32 elements into i8 bytes, got " << in.getElementType() << " -> "
                         << out.getElementType();
  int64_t r = in.getRank();
  if (in.getShape()[r - 1] % 2)
    return emitOpError() << "needs an even last dimension, got " << in.getShape()[r - 1];
  SmallVector<int64_t> expected(in.getShape());
  expected[r - 1] /= 2;
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result must have the input's shape with half the last dimension, got " << out;
  if (auto inLayout = dyn_cast_or_null<BlockedLayoutAttr>(in.getLayout()))
    if (inLayout.getVec()[r - 1] % 2)
      return emitOpError() << "each thread must hold pairs along the last dimension; the layout " << inLayout
                           << " gives it " << inLayout.getVec()[r - 1] << " element(s) per chunk";
  return success();
}

LogicalResult UnpackE2M1Op::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (!in.getElementType().isInteger(8) || !out.getElementType().isF32())
    return emitOpError() << "unpacks i8 bytes into f32 elements, got " << in.getElementType() << " -> "
                         << out.getElementType();
  SmallVector<int64_t> expected(in.getShape());
  expected.back() *= 2;
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result must have the input's shape with twice the last dimension, got " << out;
  return success();
}

LogicalResult E2M1ToE4M3Op::verify() {
  FragmentType codes = getCodes().getType(), shift = getShift().getType(), out = getResult().getType();
  if (!codes.getElementType().isInteger(8) || !shift.getElementType().isInteger(32) ||
      !isa<Float8E4M3FNType>(out.getElementType()))
    return emitOpError() << "takes i8 codes (two per byte) and i32 shifts to f8E4M3FN, got " << codes.getElementType()
                         << ", " << shift.getElementType() << " -> " << out.getElementType();
  SmallVector<int64_t> expected(codes.getShape());
  expected.back() *= 2;
  if (out.getShape() != ArrayRef<int64_t>(expected) || shift.getShape() != out.getShape())
    return emitOpError() << "the shift and the result must have the codes' shape with twice the last dimension, got "
                         << shift << " and " << out;
  return success();
}

LogicalResult UnpackE5M6Op::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (!in.getElementType().isInteger(8) || !out.getElementType().isF32())
    return emitOpError() << "unpacks i8 bytes into f32 elements, got " << in.getElementType() << " -> "
                         << out.getElementType();
  int64_t r = in.getRank();
  if (in.getShape()[r - 1] % 12)
    return emitOpError() << "needs a last dimension that is a multiple of 12 bytes, got " << in.getShape()[r - 1];
  SmallVector<int64_t> expected(in.getShape());
  expected[r - 1] = expected[r - 1] / 3 * 2;
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result must have the input's shape with 2/3 the last dimension, got " << out;
  if (auto inLayout = dyn_cast_or_null<BlockedLayoutAttr>(in.getLayout()))
    if (inLayout.getVec()[r - 1] % 12)
      return emitOpError() << "each thread must hold runs of 12 bytes along the last dimension; the layout "
                           << inLayout << " does not";
  return success();
}

LogicalResult PackE5M6Op::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (!in.getElementType().isF32() || !out.getElementType().isInteger(8))
    return emitOpError() << "packs f32 elements into i8 bytes, got " << in.getElementType() << " -> "
                         << out.getElementType();
  int64_t r = in.getRank();
  if (in.getShape()[r - 1] % 8)
    return emitOpError() << "needs a last dimension that is a multiple of 8, got " << in.getShape()[r - 1];
  SmallVector<int64_t> expected(in.getShape());
  expected[r - 1] = expected[r - 1] / 2 * 3;
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result must have the input's shape with 3/2 the last dimension, got " << out;
  if (auto inLayout = dyn_cast_or_null<BlockedLayoutAttr>(in.getLayout()))
    if (inLayout.getVec()[r - 1] % 8)
      return emitOpError() << "each thread must hold runs of 8 along the last dimension; the layout " << inLayout
                           << " gives it " << inLayout.getVec()[r - 1] << " element(s) per chunk";
  return success();
}

LogicalResult TransposeOp::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (in.getRank() < 2)
    return emitOpError() << "transposes the last two dimensions: needs rank >= 2, got " << in.getRank();
  SmallVector<int64_t> expected(in.getShape());
  std::swap(expected[in.getRank() - 1], expected[in.getRank() - 2]);
  if (out.getShape() != ArrayRef<int64_t>(expected) || out.getElementType() != in.getElementType())
    return emitOpError() << "result must be the input with its last two dimensions swapped, got " << out;
  return success();
}

LogicalResult RelayoutOp::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (in.getShape() != out.getShape() || in.getElementType() != out.getElementType())
    return emitOpError() << "changes only the layout: the result must have the input's shape and element type, got "
                         << in << " -> " << out;
  if (!out.getLayout())
    return emitOpError() << "needs the result's layout";
  return success();
}

#define GET_OP_CLASSES
#include "tk/compiler/Dialect/Tile/TileOps.cpp.inc"
