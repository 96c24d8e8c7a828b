//===- StructureOps.cpp - kernels, grids, pipelines: assembly and verifiers ===//
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "OpHelpers.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/Support/MathExtras.h"

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
  return ScheduleAttr::get(getContext(), 0, 0, 0, false, 0, false, false, 0);
}

GridOp KernelOp::getGrid() {
  for (Operation &op : getBody().front())
    if (auto grid = dyn_cast<GridOp>(op))
      return grid;
  return {};
}

/// The most fragment elements each thread of a block may hold (see below).
static constexpr int64_t kMaxFragmentElementsPerThread = 512;

std::string tk::tile::threadCountError(int64_t threads) {
  // With 14 warps a tile spread over 8 would run on six warps twice, and a reduction's per-warp buffer (sized for
  // the layout's warps, indexed by the real warp) would be written past its end.
  if (threads >= 32 && threads <= 1024 && threads % 32 == 0 && llvm::isPowerOf2_64(threads / 32))
    return "";
  return "threads per block must be 32 times a power of two (32, 64, 128, 256, 512 or 1024), got " +
         std::to_string(threads);
}

LogicalResult KernelOp::verify() {
  int64_t threads = getThreads();
  if (std::string why = threadCountError(threads); !why.empty())
    return emitOpError() << why;
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
  // Kernels built in C++ make their types without the type verifier (which
  // the parser runs): check every fragment here, and its size against the
  // block: each thread unrolls its part into registers, so a larger part
  // would not fit them and would take the compiler minutes (1024 f32 per
  // thread: 10 s, 8192: past 6 GB of memory).
  WalkResult sized = getBody().walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto frag = dyn_cast<FragmentType>(t)) {
        if (failed(FragmentType::verifyInvariants([&] { return op->emitOpError(); }, frag.getShape(),
                                                  frag.getElementType(), frag.getLayout())))
          return WalkResult::interrupt();
        if (frag.getNumElements() > threads * kMaxFragmentElementsPerThread) {
          op->emitOpError() << "fragment " << frag << " holds more than " << kMaxFragmentElementsPerThread
                            << " elements per thread of this kernel's " << threads << " threads";
          return WalkResult::interrupt();
        }
      }
    return WalkResult::advance();
  });
  return failure(sized.wasInterrupted());
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
      parser.resolveOperand(ub, index, result.operands))
    return failure();
  // iter_args(%acc = %init, ...) -> (types): the carried values.
  SmallVector<OpAsmParser::Argument> args{iv};
  SmallVector<OpAsmParser::UnresolvedOperand> inits;
  if (succeeded(parser.parseOptionalKeyword("iter_args"))) {
    if (parser.parseAssignmentList(args, inits) || parser.parseArrowTypeList(result.types))
      return failure();
    if (result.types.size() != inits.size())
      return parser.emitError(parser.getNameLoc())
             << "has " << inits.size() << " iter_args and " << result.types.size() << " result types";
    for (auto [arg, init, type] : llvm::zip(llvm::drop_begin(args), inits, result.types)) {
      arg.type = type;
      if (parser.resolveOperand(init, type, result.operands))
        return failure();
    }
  }
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args))
    return failure();
  if (inits.empty())
    PipelineOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void PipelineOp::print(OpAsmPrinter &p) {
  p << " " << getInductionVar() << " = " << getLowerBound() << " to " << getUpperBound() << " ";
  if (!getInits().empty()) {
    p << "iter_args(";
    llvm::interleaveComma(llvm::zip(getRegionIterArgs(), getInits()), p,
                          [&](auto pair) { p << std::get<0>(pair) << " = " << std::get<1>(pair); });
    p << ") -> (" << getResultTypes() << ") ";
  }
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/!getInits().empty());
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
  if (body.getNumArguments() != 1 + getInits().size() || !body.getArgument(0).getType().isIndex())
    return emitOpError() << "body must have an index argument (the induction variable) and one per carried value";
  if (getNumResults() != getInits().size())
    return emitOpError() << "has " << getInits().size() << " carried values and " << getNumResults() << " results";
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(&body.back());
  if (!yield || yield.getValues().size() != getInits().size())
    return emitOpError() << "body must end in a tile.yield of its " << getInits().size() << " carried values";
  for (auto [i, init, arg, next, res] :
       llvm::enumerate(getInits(), getRegionIterArgs(), yield.getValues(), getResults()))
    if (arg.getType() != init.getType() || next.getType() != init.getType() || res.getType() != init.getType())
      return emitOpError() << "carried value " << i << " is " << init.getType() << " on entry; its argument, "
                           << "yield and result must be too (got " << arg.getType() << ", " << next.getType() << ", "
                           << res.getType() << ")";
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
