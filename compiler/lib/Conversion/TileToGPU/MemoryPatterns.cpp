//===- MemoryPatterns.cpp - loads, stores, shared buffers, copies, barriers ===//
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// Blocked fragments as chunked vector accesses; reduced ones (and those
/// split along the last dimension) one element per group.
struct LoadPattern : TileToGpuPattern<LoadOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(LoadOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Type elt = storageType(type.getElementType());
    Value v;
    if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout()) || op.getSplitLast()) {
      FailureOr<Grouping> g = groupingOrSingletons(op, type);
      if (failed(g))
        return failure();
      v = emit.loadReduced(a.getSource(), a.getIndices(), g->g, elt, innerOf(*g), op.getSplitLast().value_or(0));
    } else {
      FailureOr<BlockedLayout> l = blockedOf(op, type);
      if (failed(l))
        return failure();
      v = emit.load(op, a.getSource(), a.getIndices(), *l, elt);
    }
    rw.replaceOp(op, v);
    return success();
  }
};

struct StorePattern : TileToGpuPattern<StoreOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(StoreOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getValue().getType();
    if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout()) || op.getSplitLast() || op.getAtomicAdd()) {
      FailureOr<Grouping> g = groupingOrSingletons(op, type);
      if (failed(g))
        return failure();
      emit.storeReduced(a.getValue(), a.getDest(), a.getIndices(), g->g, innerOf(*g), op.getSplitLast().value_or(0),
                        op.getAtomicAdd(), a.getMask());
    } else {
      FailureOr<BlockedLayout> l = blockedOf(op, type);
      if (failed(l))
        return failure();
      emit.store(op, a.getValue(), a.getDest(), a.getIndices(), *l, /*rows=*/nullptr, a.getMask());
    }
    rw.eraseOp(op);
    return success();
  }
};

/// A workgroup attribution of the kernel, 16-byte aligned.
struct AllocPattern : TileToGpuPattern<AllocOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(AllocOp op, Adaptor, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, emit.sharedBuffer(cast<MemRefType>(gpuMemRefType(op.getBuffer().getType())), op.getLoc()));
    return success();
  }
};

/// A version of a multi-buffered shared tile (tile-pipeline-copies): float8
/// elements as i8, and the alignment of its offset (a whole number of tiles).
struct SubViewPattern : OpConversionPattern<memref::SubViewOp> {
  SubViewPattern(const TypeConverter &converter, MLIRContext *ctx, KernelStates &states)
      : OpConversionPattern(converter, ctx), states(states) {}
  LogicalResult matchAndRewrite(memref::SubViewOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    KernelState &state = states.of(op);
    IRMapping map;
    map.map(op.getSource(), a.getSource());
    Operation *view = rw.clone(*op, map);
    auto type = cast<MemRefType>(gpuMemRefType(op.getType()));
    view->getResult(0).setType(type);
    int64_t bytes = type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    int64_t align = state.alignment.lookup(a.getSource());
    while (align > 1 && bytes % align)
      align /= 2;
    state.alignment[view->getResult(0)] = std::max<int64_t>(1, align);
    rw.replaceOp(op, view->getResults());
    return success();
  }
  KernelStates &states;
};

/// cp.async (or bulk copies with mbarriers) where the chunks allow,
/// otherwise through registers.
struct CopyPattern : TileToGpuPattern<CopyOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(CopyOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    MemRefType dst = op.getDest().getType();
    std::vector<int64_t> shape(dst.getShape().begin(), dst.getShape().end());
    Type elt = storageType(dst.getElementType());
    int64_t vec = std::max<int64_t>(1, 16 / std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8));
    BlockedLayout l = chooseBlockedLayout(shape, emit.state.numWarps, vec);
    Value src = a.getSource(), dest = a.getDest(), bars = a.getBarriers();
    SmallVector<Value> origin(a.getIndices());
    if (bars ? emit.bulkCopy(op, src, origin, dest, bars, a.getSlot(), emit.state.threads)
             : op.getAsync() && emit.asyncCopy(op, src, origin, dest, l, elt)) {
      rw.eraseOp(op);
      return success();
    }
    // Synchronous, through registers. A cp.async copy that cannot be one is
    // complete here, which its later wait_copies does not mind; a bulk copy
    // that cannot be one is complete for the block before the arrival it owes.
    Value v = emit.load(op, src, origin, l, elt);
    emit.store(op, v, dest, SmallVector<Value>(dst.getRank(), emit.index(0)), l);
    if (!op.getAsync() || bars)
      gpu::BarrierOp::create(rw, emit.loc);
    if (bars)
      emit.arriveExpecting(bars, a.getSlot(), arith::ConstantOp::create(rw, emit.loc, rw.getI32IntegerAttr(0)));
    rw.eraseOp(op);
    return success();
  }
};

struct CommitCopiesPattern : TileToGpuPattern<CommitCopiesOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(CommitCopiesOp op, Adaptor, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    NVVM::CpAsyncCommitGroupOp::create(rw, emit.loc);
    rw.eraseOp(op);
    return success();
  }
};

struct WaitCopiesPattern : TileToGpuPattern<WaitCopiesOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(WaitCopiesOp op, Adaptor, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    NVVM::CpAsyncWaitGroupOp::create(rw, emit.loc, rw.getI32IntegerAttr((int32_t)op.getPending()));
    gpu::BarrierOp::create(rw, emit.loc);
    rw.eraseOp(op);
    return success();
  }
};

struct BarrierPattern : TileToGpuPattern<BarrierOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(BarrierOp op, Adaptor, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    // Ops are converted in order: the buffers of the code before are made.
    if (!op.getIfSharedMemory() || emit.func.getNumWorkgroupAttributions() > 0)
      gpu::BarrierOp::create(rw, emit.loc);
    rw.eraseOp(op);
    return success();
  }
};

struct InitBarriersPattern : TileToGpuPattern<InitBarriersOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(InitBarriersOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    emit.initBarriers(a.getBarriers(), op.getCount());
    rw.eraseOp(op);
    return success();
  }
};

struct WaitBarrierPattern : TileToGpuPattern<WaitBarrierOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(WaitBarrierOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    emit.waitBarrier(a.getBarriers(), a.getSlot(), a.getParity());
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void populateMemoryPatterns(RewritePatternSet &set, const TypeConverter &converter, KernelStates &states) {
  addTileToGpuPatterns<LoadPattern, StorePattern, AllocPattern, CopyPattern, CommitCopiesPattern, WaitCopiesPattern,
                       BarrierPattern, InitBarriersPattern, WaitBarrierPattern>(set, converter, states);
  set.add<SubViewPattern>(converter, set.getContext(), states);
}

} // namespace tk::compiler
