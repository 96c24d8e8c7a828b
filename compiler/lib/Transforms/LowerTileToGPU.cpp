//===- LowerTileToGPU.cpp - tile.kernel -> gpu.func with per-thread code --===//
#include "Distribute.h"
#include "FragmentLayouts.h"
#include "NestedControlFlow.h"
#include "tk/compiler/Layout/LayoutAttrs.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILELOWERTOGPU
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

#include <optional>

using namespace mlir;
using namespace tk;
using namespace tk::tile;
using compiler::BlockedLayout;
using compiler::GroupedReduction;
using compiler::Grouping;
using compiler::blockedOf;
using compiler::groupingOf;
using compiler::groupingOrSingletons;
using compiler::innerOf;

namespace {

/// Memref types as the GPU sees them: float8 elements become i8.
Type convertArgType(Type t) {
  if (auto mem = dyn_cast<MemRefType>(t))
    return MemRefType::get(mem.getShape(), compiler::storageType(mem.getElementType()), mem.getLayout(),
                           mem.getMemorySpace());
  return t;
}

struct KernelLowering {
  KernelOp kernel;
  gpu::GPUFuncOp func;
  compiler::ThreadEmitter &emit;
  IRMapping map;

  /// Fragments a grid yields as block totals, with their totals' types, and
  /// the thread's share of each (per type) once computed: right after the op
  /// that defines the fragment, so its per-thread vector dies there instead
  /// of staying live to the end of the tile.
  llvm::DenseMap<Value, SmallVector<Type, 1>> totalled;
  llvm::DenseMap<std::pair<Value, Type>, Value> shares;

  LogicalResult lowerOp(Operation &op);
  LogicalResult lowerGrid(GridOp grid);
  FailureOr<SmallVector<Value>> lowerPersistentGrid(GridOp grid, ValueRange zeros);
  FailureOr<SmallVector<Value>> addBlockTotals(GridOp grid, ValueRange partials);
  LogicalResult shareOf(Operation &op, Value fragment, Type type);
  /// The bytes of shared memory every tile.relayout of the kernel uses (each
  /// one is done with them before the next starts), sized for the largest.
  Value relayoutScratch;
  LogicalResult lowerBlock(Block &block) {
    for (Operation &op : block.without_terminator()) {
      if (failed(lowerOp(op)))
        return failure();
      for (Value result : op.getResults())
        for (Type type : totalled.lookup(result))
          if (failed(shareOf(op, result, type)))
            return failure();
    }
    return success();
  }
};

/// The thread's share, in `type`, of a fragment yielded as a block total.
LogicalResult KernelLowering::shareOf(Operation &op, Value fragment, Type type) {
  if (shares.count({fragment, type}))
    return success();
  FailureOr<BlockedLayout> l = blockedOf(&op, cast<FragmentType>(fragment.getType()));
  if (failed(l))
    return failure();
  shares[{fragment, type}] = emit.threadTotal(map.lookup(fragment), *l, type);
  return success();
}

/// The thread's partial block totals after one tile: `partials` plus its
/// share of each fragment the grid body yields (a fragment defined outside
/// the body gets its share here).
FailureOr<SmallVector<Value>> KernelLowering::addBlockTotals(GridOp grid, ValueRange partials) {
  auto yield = cast<YieldOp>(grid.getBody().front().getTerminator());
  SmallVector<Value> out;
  for (auto [value, partial] : llvm::zip(yield.getValues(), partials)) {
    if (failed(shareOf(*yield, value, partial.getType())))
      return failure();
    out.push_back(compiler::reduceCombine(emit.b, emit.loc, ReduceKind::sum, partial,
                                          shares.lookup({value, partial.getType()})));
  }
  return out;
}

/// One tile per block, or a persistent loop over tiles; then the block
/// totals (the grid's results), combined across the block's threads.
LogicalResult KernelLowering::lowerGrid(GridOp grid) {
  OpBuilder &b = emit.b;
  auto yield = cast<YieldOp>(grid.getBody().front().getTerminator());
  SmallVector<Value> zeros;
  for (auto [value, total] : llvm::zip(yield.getValues(), grid.getTotals())) {
    totalled[value].push_back(total.getType());
    zeros.push_back(arith::ConstantOp::create(b, emit.loc, total.getType(), b.getZeroAttr(total.getType())));
  }
  FailureOr<SmallVector<Value>> partials;
  if (grid.getPersistent()) {
    partials = lowerPersistentGrid(grid, zeros);
  } else {
    gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
    for (auto [i, arg] : llvm::enumerate(grid.getBlockIndices())) {
      // A static extent bounds the block index (the launch has exactly that
      // many blocks along it): 0 for an extent of 1, else an upper bound that
      // range analysis and the bounds of every access build on (a whole-row
      // kernel's column index is then provably in bounds).
      APInt extent;
      if (matchPattern(map.lookupOrDefault(grid.getSizes()[i]), m_ConstantInt(&extent))) {
        if (extent.getZExtValue() == 1)
          map.map(arg, arith::ConstantIndexOp::create(b, emit.loc, 0));
        else
          map.map(arg, gpu::BlockIdOp::create(b, emit.loc, gpu::DimensionAttr::get(b.getContext(), dims[i]),
                                              b.getIndexAttr(extent.getZExtValue())));
        continue;
      }
      Value blk = gpu::BlockIdOp::create(b, emit.loc, dims[i]);
      map.map(arg, blk);
      // An extent ceil(E / c): tile c of this grid starts below E.
      if (auto tiles = map.lookupOrDefault(grid.getSizes()[i]).getDefiningOp<arith::CeilDivUIOp>()) {
        APInt c;
        if (matchPattern(tiles.getRhs(), m_ConstantInt(&c)) && c.getSExtValue() > 0)
          emit.blockIndexTiles[blk] = {tiles.getLhs(), c.getSExtValue()};
      }
    }
    if (failed(lowerBlock(grid.getBody().front())))
      return failure();
    partials = addBlockTotals(grid, zeros);
  }
  if (failed(partials))
    return failure();
  for (auto [result, partial] : llvm::zip(grid.getTotals(), *partials))
    map.map(result, emit.blockTotal(partial, kernel.getNumWarps()));
  return success();
}

/// A persistent grid: the launch has fewer blocks than tiles (one
/// dimension); block b runs tiles b, b + gridDim.x, ... of the extents'
/// product, dimension 0 fastest. When the body uses shared memory, a barrier
/// ends each tile so that no thread writes the next tile's buffers while
/// another still reads this one's. The thread's partial block totals are
/// the loop's carried values.
FailureOr<SmallVector<Value>> KernelLowering::lowerPersistentGrid(GridOp grid, ValueRange zeros) {
  OpBuilder &b = emit.b;
  Location loc = emit.loc;
  SmallVector<Value> sizes;
  Value total = emit.index(1);
  for (Value s : grid.getSizes()) {
    sizes.push_back(map.lookup(s));
    total = arith::MulIOp::create(b, loc, total, sizes.back());
  }
  Value first = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value step = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  auto loop = scf::ForOp::create(b, loc, first, total, step, zeros);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = loop.getBody();
    if (body->mightHaveTerminator())
      b.setInsertionPoint(body->getTerminator());
    else
      b.setInsertionPointToEnd(body);
    Value rest = loop.getInductionVar();
    for (auto [i, arg] : llvm::enumerate(grid.getBlockIndices())) {
      bool last = i + 1 == sizes.size();
      map.map(arg, last ? rest : Value(arith::RemUIOp::create(b, loc, rest, sizes[i])));
      if (!last)
        rest = arith::DivUIOp::create(b, loc, rest, sizes[i]);
    }
    if (failed(lowerBlock(grid.getBody().front())))
      return failure();
    if (func.getNumWorkgroupAttributions() > 0)
      gpu::BarrierOp::create(b, loc);
    FailureOr<SmallVector<Value>> partials = addBlockTotals(grid, loop.getRegionIterArgs());
    if (failed(partials))
      return failure();
    if (!zeros.empty())
      scf::YieldOp::create(b, loc, *partials);
  }
  return SmallVector<Value>(loop.getResults());
}

LogicalResult KernelLowering::lowerOp(Operation &op) {
  OpBuilder &b = emit.b;
  auto mapped = [&](Value v) { return map.lookup(v); };
  auto origin = [&](ValueRange indices) {
    SmallVector<Value> out;
    for (Value v : indices)
      out.push_back(mapped(v));
    return out;
  };

  if (auto grid = dyn_cast<GridOp>(op))
    return lowerGrid(grid);
  if (auto add = dyn_cast<AtomicAddOp>(op)) { // once per block: by thread 0
    Value value = mapped(add.getValue()), dest = mapped(add.getDest());
    SmallVector<Value> at = origin(add.getIndices());
    emit.whenAll({emit.isFirstThread()}, [&](OpBuilder &tb, Location l) {
      memref::AtomicRMWOp::create(tb, l,
                                  isa<FloatType>(value.getType()) ? arith::AtomicRMWKind::addf
                                                                  : arith::AtomicRMWKind::addi,
                                  value, dest, at);
    });
    return success();
  }
  if (auto load = dyn_cast<LoadOp>(op)) {
    FragmentType type = load.getResult().getType();
    if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout()) || load.getSplitLast()) {
      FailureOr<Grouping> g = groupingOrSingletons(&op, type);
      if (failed(g))
        return failure();
      map.map(load.getResult(), emit.loadReduced(mapped(load.getSource()), origin(load.getIndices()), g->g,
                                                 compiler::storageType(type.getElementType()), innerOf(*g),
                                                 load.getSplitLast().value_or(0)));
      return success();
    }
    FailureOr<BlockedLayout> l = blockedOf(&op, type);
    if (failed(l))
      return failure();
    Value v = emit.load(&op, mapped(load.getSource()), origin(load.getIndices()), *l,
                        compiler::storageType(type.getElementType()));
    map.map(load.getResult(), v);
    return success();
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    FragmentType type = store.getValue().getType();
    if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout()) || store.getSplitLast() || store.getAtomicAdd()) {
      FailureOr<Grouping> g = groupingOrSingletons(&op, type);
      if (failed(g))
        return failure();
      emit.storeReduced(mapped(store.getValue()), mapped(store.getDest()), origin(store.getIndices()), g->g,
                        innerOf(*g), store.getSplitLast().value_or(0), store.getAtomicAdd());
      return success();
    }
    FailureOr<BlockedLayout> l = blockedOf(&op, type);
    if (failed(l))
      return failure();
    emit.store(&op, mapped(store.getValue()), mapped(store.getDest()), origin(store.getIndices()), *l);
    return success();
  }
  if (auto alloc = dyn_cast<AllocOp>(op)) {
    MemRefType type = alloc.getBuffer().getType();
    Value buf = emit.sharedBuffer(cast<MemRefType>(convertArgType(type)));
    map.map(alloc.getBuffer(), buf);
    return success();
  }
  if (auto copy = dyn_cast<CopyOp>(op)) {
    MemRefType dst = copy.getDest().getType();
    std::vector<int64_t> shape(dst.getShape().begin(), dst.getShape().end());
    Type elt = compiler::storageType(dst.getElementType());
    int64_t vec = std::max<int64_t>(1, 16 / std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8));
    BlockedLayout l = compiler::chooseBlockedLayout(shape, kernel.getNumWarps(), vec);
    Value src = mapped(copy.getSource()), dest = mapped(copy.getDest());
    Value bars = copy.getBarriers() ? mapped(copy.getBarriers()) : Value();
    if (bars ? emit.bulkCopy(&op, src, origin(copy.getIndices()), dest, bars, mapped(copy.getSlot()),
                             kernel.getThreads())
             : copy.getAsync() && emit.asyncCopy(&op, src, origin(copy.getIndices()), dest, l, elt))
      return success();
    // Synchronous, through registers. A cp.async copy that cannot be one is
    // complete here, which its later wait_copies does not mind; a bulk copy
    // that cannot be one is complete for the block before the arrival it owes.
    Value v = emit.load(&op, src, origin(copy.getIndices()), l, elt);
    emit.store(&op, v, dest, SmallVector<Value>(dst.getRank(), emit.index(0)), l);
    if (!copy.getAsync() || bars)
      gpu::BarrierOp::create(b, emit.loc);
    if (bars)
      emit.arriveExpecting(bars, mapped(copy.getSlot()),
                           arith::ConstantOp::create(b, emit.loc, b.getI32IntegerAttr(0)));
    return success();
  }
  if (isa<CommitCopiesOp>(op)) {
    NVVM::CpAsyncCommitGroupOp::create(b, emit.loc);
    return success();
  }
  if (auto wait = dyn_cast<WaitCopiesOp>(op)) {
    NVVM::CpAsyncWaitGroupOp::create(b, emit.loc, b.getI32IntegerAttr((int32_t)wait.getPending()));
    gpu::BarrierOp::create(b, emit.loc);
    return success();
  }
  if (isa<BarrierOp>(op)) {
    gpu::BarrierOp::create(b, emit.loc);
    return success();
  }
  if (auto init = dyn_cast<InitBarriersOp>(op)) {
    emit.initBarriers(mapped(init.getBarriers()), init.getCount());
    return success();
  }
  if (auto wait = dyn_cast<WaitBarrierOp>(op)) {
    emit.waitBarrier(mapped(wait.getBarriers()), mapped(wait.getSlot()), mapped(wait.getParity()));
    return success();
  }
  if (isa<PipelineOp>(op))
    return op.emitOpError() << "must be rewritten by tile-pipeline-copies before tile-lower-to-gpu";
  if (auto view = dyn_cast<memref::SubViewOp>(op)) {
    // A version of a multi-buffered shared tile: float8 elements as i8, and
    // the alignment of its offset (a whole number of tiles).
    Operation *clone = b.clone(op, map);
    auto type = cast<MemRefType>(convertArgType(view.getType()));
    clone->getResult(0).setType(type);
    map.map(view.getResult(), clone->getResult(0));
    int64_t bytes = type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    int64_t align = emit.alignment.lookup(mapped(view.getSource()));
    while (align > 1 && bytes % align)
      align /= 2;
    emit.alignment[clone->getResult(0)] = std::max<int64_t>(1, align);
    return success();
  }
  if (std::optional<LogicalResult> nested =
          compiler::lowerNestedControlFlow(op, b, emit.loc, map, [&](Block &block) {
            if (!emit.rereadInLoops || !isa<scf::ForOp>(block.getParentOp()))
              return lowerBlock(block);
            // Asked for by the kernel (its schedule: reread_thread_index,
            // KernelBuilder::rereadThreadIndexInLoops); TK_ABLATE=
            // loop-thread-index switches it off.
            compiler::ThreadEmitter::ThreadIndex outer = emit.rereadThreadIndex();
            LogicalResult lowered = lowerBlock(block);
            emit.restoreThreadIndex(std::move(outer));
            return lowered;
          }))
    return *nested;
  if (auto par = dyn_cast<ParallelOp>(op)) {
    FragmentType type = par.getResult().getType();
    int64_t slots;
    if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout())) {
      FailureOr<Grouping> g = groupingOf(&op, type);
      if (failed(g))
        return failure();
      if (!g->inner) { // the lanes of each group may split the work
        FailureOr<Value> split = emit.parallelSplitOverGroup(par, origin(par.getInputs()), g->g);
        if (failed(split))
          return failure();
        if (*split) {
          map.map(par.getResult(), *split);
          return success();
        }
      }
      slots = g->g.reducedSlots();
    } else {
      FailureOr<BlockedLayout> l = blockedOf(&op, type);
      if (failed(l))
        return failure();
      slots = l->slotsPerThread();
    }
    SmallVector<Value> inputs = origin(par.getInputs());
    FailureOr<Value> v = emit.parallel(par, inputs, slots);
    if (failed(v))
      return failure();
    map.map(par.getResult(), *v);
    return success();
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    FailureOr<Grouping> g = groupingOf(&op, reduce.getResult().getType());
    if (failed(g))
      return failure();
    Value input = mapped(reduce.getInput());
    // A reduction of a reduction: back to the root layout (its values
    // replicated over the first reduction's groups), then reduce that.
    if (g->inner)
      input = emit.expand(input, *g->inner);
    map.map(reduce.getResult(), emit.reduce(reduce.getKind(), input, g->g, innerOf(*g)));
    return success();
  }
  if (auto expand = dyn_cast<ExpandOp>(op)) {
    FailureOr<Grouping> g = groupingOf(&op, expand.getInput().getType());
    if (failed(g))
      return failure();
    Value input = mapped(expand.getInput());
    map.map(expand.getResult(), g->inner ? emit.regroup(input, g->g, *g->inner) : emit.expand(input, g->g));
    return success();
  }
  if (auto tr = dyn_cast<TransposeOp>(op)) {
    FailureOr<BlockedLayout> in = blockedOf(&op, tr.getInput().getType());
    FailureOr<BlockedLayout> out = blockedOf(&op, tr.getResult().getType());
    if (failed(in) || failed(out))
      return failure();
    map.map(tr.getResult(), emit.transpose(&op, mapped(tr.getInput()), *in, *out,
                                           compiler::storageType(tr.getResult().getType().getElementType())));
    return success();
  }
  if (auto unpack = dyn_cast<UnpackE2M1Op>(op)) {
    if (failed(blockedOf(&op, unpack.getInput().getType())))
      return failure();
    map.map(unpack.getResult(), compiler::emitUnpackE2M1(b, emit.loc, mapped(unpack.getInput())));
    return success();
  }
  if (auto unpack = dyn_cast<UnpackE5M6Op>(op)) {
    if (failed(blockedOf(&op, unpack.getInput().getType())))
      return failure();
    map.map(unpack.getResult(), compiler::emitUnpackE5M6(b, emit.loc, mapped(unpack.getInput())));
    return success();
  }
  if (auto conv = dyn_cast<E2M1ToE4M3Op>(op)) {
    FailureOr<BlockedLayout> l = blockedOf(&op, conv.getResult().getType());
    if (failed(l) || failed(blockedOf(&op, conv.getCodes().getType())))
      return failure();
    map.map(conv.getResult(), emit.e2m1ToE4M3(mapped(conv.getCodes()), mapped(conv.getShift())));
    return success();
  }
  if (auto pack = dyn_cast<PackE5M6Op>(op)) {
    if (failed(blockedOf(&op, pack.getInput().getType())))
      return failure();
    map.map(pack.getResult(), compiler::emitPackE5M6(b, emit.loc, mapped(pack.getInput()), emit.fp8Hardware));
    return success();
  }
  if (auto pack = dyn_cast<PackE2M1Op>(op)) {
    if (failed(blockedOf(&op, pack.getInput().getType())))
      return failure();
    map.map(pack.getResult(), compiler::emitPackE2M1(b, emit.loc, mapped(pack.getInput())));
    return success();
  }
  if (auto gather = dyn_cast<GatherRowsOp>(op)) {
    FragmentType type = gather.getResult().getType();
    Type elt = compiler::storageType(type.getElementType());
    SmallVector<Value> at = {emit.index(0), mapped(gather.getCol())}; // the row comes from `rows`
    if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout())) {
      FailureOr<Grouping> g = groupingOf(&op, type);
      if (failed(g))
        return failure();
      map.map(gather.getResult(), emit.loadReduced(mapped(gather.getSource()), at, g->g, elt, innerOf(*g), 0,
                                                   mapped(gather.getRows())));
      return success();
    }
    FailureOr<BlockedLayout> l = blockedOf(&op, type);
    if (failed(l))
      return failure();
    map.map(gather.getResult(), emit.load(&op, mapped(gather.getSource()), at, *l, elt, mapped(gather.getRows())));
    return success();
  }
  if (auto scatter = dyn_cast<ScatterOp>(op)) { // one element, held (at least) by thread 0
    Value first = emit.isFirstThread();
    Value value = vector::ExtractOp::create(b, emit.loc, mapped(scatter.getValue()), ArrayRef<int64_t>{0});
    Value index = vector::ExtractOp::create(b, emit.loc, mapped(scatter.getIndex()), ArrayRef<int64_t>{0});
    scf::IfOp::create(b, emit.loc, first, [&](OpBuilder &tb, Location l) {
      compiler::emitScatter(tb, l, mapped(scatter.getDest()), index, value);
      scf::YieldOp::create(tb, l);
    });
    return success();
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    Type elt = compiler::storageType(gather.getResult().getType().getElementType());
    map.map(gather.getResult(), compiler::emitGather(b, emit.loc, mapped(gather.getSource()),
                                                     mapped(gather.getIndex()), elt));
    return success();
  }
  if (auto relayout = dyn_cast<RelayoutOp>(op)) {
    FailureOr<Value> v = emit.relayout(relayout, mapped(relayout.getInput()), relayoutScratch);
    if (failed(v))
      return failure();
    map.map(relayout.getResult(), *v);
    return success();
  }
  if (auto conv = dyn_cast<ConvertOp>(op)) {
    FailureOr<Value> v = emit.convert(conv, mapped(conv.getInput()));
    if (failed(v))
      return failure();
    map.map(conv.getResult(), *v);
    return success();
  }
  if (op.getDialect() && isa<TileDialect>(op.getDialect()))
    return op.emitOpError() << "has no GPU lowering";
  if (holdsTileOps(op))
    return op.emitOpError() << "holds tile ops in a nested region; tile ops must be at grid level or in "
                               "scf.for / scf.if";
  b.clone(op, map);
  return success();
}

struct TileLowerToGPU : public tk::tile::impl::TileLowerToGPUBase<TileLowerToGPU> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    if (kernels.empty())
      return;
    if (swizzleBytes != 1 && swizzleBytes != 2 && swizzleBytes != 4) {
      module.emitError() << "tile-lower-to-gpu: swizzle-bytes must be 1, 2 or 4, got " << int64_t(swizzleBytes);
      return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(module.getContext()));
    for (KernelOp kernel : kernels)
      if (failed(lower(kernel)))
        return signalPassFailure();
  }

  LogicalResult lower(KernelOp kernel) {
    OpBuilder b(kernel);
    Location loc = kernel.getLoc();
    auto gpuModule = gpu::GPUModuleOp::create(b, loc, kernel.getSymName());
    b.setInsertionPointToStart(gpuModule.getBody());
    SmallVector<Type> argTypes;
    for (Type t : kernel.getArgumentTypes())
      argTypes.push_back(convertArgType(t));
    auto func = gpu::GPUFuncOp::create(b, loc, kernel.getSymName(), b.getFunctionType(argTypes, {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({(int32_t)kernel.getThreads(), 1, 1}));
    // Launch bounds: ptxas caps the registers per thread to fit that many
    // blocks per SM. A persistent grid asks for its own blocks per SM (the
    // launcher runs no more than fit at once), unless the option overrides.
    int64_t minBlocks = minBlocksPerSm;
    if (GridOp grid = kernel.getGrid(); grid && grid.getPersistent() && minBlocks == 0)
      minBlocks = *grid.getPersistent();
    if (minBlocks > 0)
      func->setAttr("nvvm.minctasm", b.getI32IntegerAttr((int32_t)minBlocks));

    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    compiler::ThreadEmitter emit(b, loc, func, fp8Hardware, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    emit.remarks = remarks;
    emit.swizzle = swizzle;
    emit.swizzleBytes = swizzleBytes;
    emit.rereadInLoops = rereadThreadIndex && kernel.getScheduleOrDefault().getRereadThreadIndex();
    KernelLowering lowering{kernel, func, emit, {}};
    for (auto [i, arg] : llvm::enumerate(kernel.getBody().getArguments())) {
      BlockArgument gpuArg = func.getArgument(i);
      lowering.map.map(arg, gpuArg);
      auto elt = isa<MemRefType>(arg.getType()) ? cast<MemRefType>(arg.getType()).getElementType() : Type();
      int64_t eltBytes = elt ? std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8) : 1;
      auto align = kernel.getArgAttrOfType<IntegerAttr>(i, "tile.align");
      emit.alignment[gpuArg] = align ? align.getInt() : eltBytes;
      if (auto multiples = kernel.getArgAttrOfType<DenseI64ArrayAttr>(i, "tile.dim_multiples"))
        emit.dimMultiples[gpuArg] = llvm::SmallVector<int64_t>(multiples.asArrayRef());
    }
    if (failed(lowering.lowerBlock(kernel.getBody().front())))
      return failure();
    gpu::ReturnOp::create(b, loc);
    kernel.erase();
    return success();
  }
};

} // namespace
