//===- KernelOutline.cpp - a tile.kernel becomes a gpu.func ---------------===//
//
// The structure of a kernel, before its ops are converted: the gpu.module
// and gpu.func it becomes, the thread index its code derives from, its grid
// as block indices (or a persistent loop over tiles) and its block totals as
// per-thread shares summed over the block (tile.thread_total,
// tile.block_sum), so that the patterns that follow see tile ops in plain
// code, in the order they run.
//===----------------------------------------------------------------------===//
#include "KernelOutline.h"
#include "tk/compiler/Dialect/Tile/Writers.h"
#include "tk/compiler/ElementBytes.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {

namespace {

/// Only scf.for and scf.if hold tile ops in their regions; both may carry
/// or yield fragments (each thread its slots).
LogicalResult checkNesting(KernelOp kernel) {
  WalkResult walk = kernel.walk([&](Operation *op) -> WalkResult {
    if (isa<KernelOp, GridOp, ParallelOp, PipelineOp>(op) || !holdsTileOps(*op))
      return WalkResult::advance();
    if (!isa<scf::ForOp, scf::IfOp>(op))
      return op->emitOpError() << "holds tile ops in a nested region; tile ops must be at grid level or in "
                                  "scf.for / scf.if",
             WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// The block indices of a grid with one tile per block. A static extent
/// bounds its index (the launch has exactly that many blocks along it): 0
/// for an extent of 1, else an upper bound that range analysis and the
/// bounds of every access build on. An extent ceil(E / c) records that
/// tile c of this grid starts below E (KernelState::blockIndexTiles).
SmallVector<Value> blockIndices(OpBuilder &b, Location loc, GridOp grid, KernelState &state) {
  gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
  SmallVector<Value> out;
  for (auto [i, size] : llvm::enumerate(grid.getSizes())) {
    APInt extent;
    if (matchPattern(size, m_ConstantInt(&extent))) {
      out.push_back(extent.getZExtValue() == 1
                        ? Value(arith::ConstantIndexOp::create(b, loc, 0))
                        : Value(gpu::BlockIdOp::create(b, loc, gpu::DimensionAttr::get(b.getContext(), dims[i]),
                                                       b.getIndexAttr(extent.getZExtValue()))));
      continue;
    }
    Value blk = gpu::BlockIdOp::create(b, loc, dims[i]);
    out.push_back(blk);
    if (auto tiles = size.getDefiningOp<arith::CeilDivUIOp>()) {
      APInt c;
      if (matchPattern(tiles.getRhs(), m_ConstantInt(&c)) && c.getSExtValue() > 0)
        state.blockIndexTiles[blk] = {tiles.getLhs(), c.getSExtValue()};
    }
  }
  return out;
}

/// Moves the grid body's ops (but its yield) before `before`, its block
/// indices replaced by `indices`; returns the yielded values.
SmallVector<Value> inlineBody(GridOp grid, ValueRange indices, Operation *before) {
  Block &body = grid.getBody().front();
  for (auto [arg, index] : llvm::zip(body.getArguments(), indices))
    arg.replaceAllUsesWith(index);
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Value> yielded(yield.getValues());
  yield.erase();
  before->getBlock()->getOperations().splice(before->getIterator(), body.getOperations());
  return yielded;
}

/// Each yielded fragment's share per total type, right after the op that
/// defines it (so its per-thread vector dies there instead of staying live
/// to the end of the tile), or at `end` when it is defined outside the body.
SmallVector<Value> threadShares(OpBuilder &b, Location loc, ArrayRef<Value> yielded, TypeRange types,
                                Block *body, Operation *end) {
  llvm::DenseMap<std::pair<Value, Type>, Value> shares;
  SmallVector<Value> out;
  for (auto [value, type] : llvm::zip(yielded, types)) {
    Value &share = shares[{value, type}];
    if (!share) {
      OpBuilder::InsertionGuard guard(b);
      Operation *def = value.getDefiningOp();
      if (def && def->getBlock() == body)
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPoint(end);
      share = ThreadTotalOp::create(b, loc, type, value);
    }
    out.push_back(share);
  }
  return out;
}

/// The grid: one tile per block, or (persistent) a loop of each block over
/// tiles b, b + blocks, ... of the extents' product, dimension 0 fastest,
/// with a barrier between tiles where shared memory is used, so that no
/// thread writes the next tile's buffers while another reads this one's.
/// Block totals: each thread's partial sums (carried by a persistent
/// loop), then their sum over the block.
void lowerGrid(GridOp grid, KernelState &state) {
  OpBuilder b(grid);
  Location loc = state.loc;
  SmallVector<Value> zeros;
  for (Type t : grid.getTotals().getTypes())
    zeros.push_back(arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t)));
  SmallVector<Value> partials;
  if (!grid.getPersistent()) {
    SmallVector<Value> yielded = inlineBody(grid, blockIndices(b, loc, grid, state), grid);
    SmallVector<Value> shares = threadShares(b, loc, yielded, grid.getTotals().getTypes(), grid->getBlock(), grid);
    for (auto [zero, share] : llvm::zip(zeros, shares))
      partials.push_back(reduceCombine(b, loc, ReduceKind::sum, zero, share));
  } else {
    SmallVector<Value> sizes(grid.getSizes());
    Value total = arith::ConstantIndexOp::create(b, loc, 1);
    for (Value s : sizes)
      total = arith::MulIOp::create(b, loc, total, s);
    Value first = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value step = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    auto loop = scf::ForOp::create(b, loc, first, total, step, zeros);
    Block *body = loop.getBody();
    OpBuilder lb(body, body->end());
    if (body->mightHaveTerminator())
      lb.setInsertionPoint(body->getTerminator());
    SmallVector<Value> indices;
    Value rest = loop.getInductionVar();
    for (auto [i, size] : llvm::enumerate(sizes)) {
      bool last = i + 1 == sizes.size();
      indices.push_back(last ? rest : Value(arith::RemUIOp::create(lb, loc, rest, size)));
      if (!last)
        rest = arith::DivUIOp::create(lb, loc, rest, size);
    }
    Operation *end = BarrierOp::create(lb, loc, /*if_shared_memory=*/true);
    SmallVector<Value> yielded = inlineBody(grid, indices, end);
    lb.setInsertionPointAfter(end);
    SmallVector<Value> shares = threadShares(lb, loc, yielded, grid.getTotals().getTypes(), body, end);
    for (auto [partial, share] : llvm::zip(loop.getRegionIterArgs(), shares))
      partials.push_back(reduceCombine(lb, loc, ReduceKind::sum, partial, share));
    if (!zeros.empty())
      scf::YieldOp::create(lb, loc, partials);
    partials.assign(loop.getResults().begin(), loop.getResults().end());
  }
  for (auto [result, partial] : llvm::zip(grid.getTotals(), partials))
    result.replaceAllUsesWith(BlockSumOp::create(b, loc, partial.getType(), partial));
  grid.erase();
}

/// Loops over tile ops that read the thread index again at the top of
/// their body (the schedule's reread_thread_index), outermost first.
void rereadInLoops(KernelState &state) {
  SmallVector<scf::ForOp> loops;
  state.func.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
    if (holdsTileOps(*loop))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
    state.loopScopes[loop.getBody()] = ThreadEmitter::rereadThreadIndex(b, state.loc);
  }
}

} // namespace

Type gpuMemRefType(Type t) {
  if (auto mem = dyn_cast<MemRefType>(t))
    return MemRefType::get(mem.getShape(), storageType(mem.getElementType()), mem.getLayout(), mem.getMemorySpace());
  return t;
}

FailureOr<KernelState *> outlineKernel(KernelOp kernel, KernelStates &states, const OutlineOptions &options) {
  if (failed(checkNesting(kernel)))
    return failure();
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  auto gpuModule = gpu::GPUModuleOp::create(b, loc, kernel.getSymName());
  b.setInsertionPointToStart(gpuModule.getBody());
  SmallVector<Type> argTypes;
  for (Type t : kernel.getArgumentTypes())
    argTypes.push_back(gpuMemRefType(t));
  auto func = gpu::GPUFuncOp::create(b, loc, kernel.getSymName(), b.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({(int32_t)kernel.getThreads(), 1, 1}));
  // Launch bounds: ptxas caps the registers per thread to fit that many
  // blocks per SM. The kernel's schedule may ask; else a persistent grid asks
  // for its own blocks per SM (the launcher runs no more than fit at once);
  // the option overrides both.
  int64_t minBlocks = options.minBlocksPerSm;
  if (minBlocks == 0)
    minBlocks = kernel.getScheduleOrDefault().getMinBlocksPerSm();
  if (GridOp grid = kernel.getGrid(); grid && grid.getPersistent() && minBlocks == 0)
    minBlocks = *grid.getPersistent();
  if (minBlocks > 0)
    func->setAttr("nvvm.minctasm", b.getI32IntegerAttr((int32_t)minBlocks));
  // For tile-dependent-launch, which keeps or drops it as the target allows.
  if (int64_t dependent = kernel.getScheduleOrDefault().getDependentLaunch())
    func->setAttr(kDependentLaunchMark, b.getI64IntegerAttr(dependent));

  KernelState &state = states.add(func, loc);
  state.threads = kernel.getThreads();
  state.numWarps = kernel.getNumWarps();
  state.fp8Hardware = options.fp8Hardware;
  state.remarks = options.remarks;
  state.swizzle = options.swizzle;
  state.swizzleBytes = options.swizzleBytes;
  state.warpgroupMma = options.warpgroupMma;
  kernel.walk([&](RelayoutOp r) { state.relayoutBytes = std::max(state.relayoutBytes, relayoutBytes(r.getType())); });

  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  state.entry = ThreadEmitter::threadIndexScope(b, loc, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  for (auto [i, arg] : llvm::enumerate(kernel.getBody().getArguments())) {
    BlockArgument gpuArg = func.getArgument(i);
    auto elt = isa<MemRefType>(arg.getType()) ? cast<MemRefType>(arg.getType()).getElementType() : Type();
    int64_t eltBytes = elt ? elementBytes(elt) : 1;
    auto align = kernel.getArgAttrOfType<IntegerAttr>(i, "tile.align");
    state.alignment[gpuArg] = align ? align.getInt() : eltBytes;
    if (auto multiples = kernel.getArgAttrOfType<DenseI64ArrayAttr>(i, "tile.dim_multiples"))
      state.dimMultiples[gpuArg] = SmallVector<int64_t>(multiples.asArrayRef());
    // Where the schedule asks, a tensor the kernel never writes is read-only memory (tile-noalias-params makes it
    // noalias too: ld.global.nc).
    const bool readonly = options.readonlyLoads || kernel.getScheduleOrDefault().getReadonlyLoads();
    if (elt && readonly && !tk::tile::firstWriter(arg))
      func.setArgAttr(i, LLVM::LLVMDialect::getReadonlyAttrName(), b.getUnitAttr());
    // Float8 tensors are i8 on the GPU: the tile ops' patterns read the
    // element type from their fragments, other users (memref.dim) take any.
    arg.replaceAllUsesWith(gpuArg);
  }
  Block &body = kernel.getBody().front();
  body.getTerminator()->erase();
  entry.getOperations().splice(entry.end(), body.getOperations());
  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b, loc);
  const bool reread = options.rereadThreadIndex && kernel.getScheduleOrDefault().getRereadThreadIndex();
  kernel.erase();
  if (reread) // before the grid becomes a loop: a persistent grid's loop keeps the entry's index
    rereadInLoops(state);
  func.walk([&](GridOp grid) { lowerGrid(grid, state); });
  return &state;
}

} // namespace tk::compiler
