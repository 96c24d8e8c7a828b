//===- StructurePatterns.cpp - block totals, what runs once per block, block-uniform scalars ===//
#include "Patterns.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// The thread's share of a block total (BlockTotals.cpp).
struct ThreadTotalPattern : TileToGpuPattern<ThreadTotalOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(ThreadTotalOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FailureOr<BlockedLayout> l = blockedOf(op, op.getInput().getType());
    if (failed(l))
      return failure();
    rw.replaceOp(op, emit.threadTotal(a.getInput(), *l, op.getType()));
    return success();
  }
};

/// A warp butterfly, then the warps' sums through shared memory (BlockTotals.cpp).
struct BlockSumPattern : TileToGpuPattern<BlockSumOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(BlockSumOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, emit.blockTotal(a.getPartial(), emit.state.numWarps));
    return success();
  }
};

/// Once per block, by its first thread.
struct AtomicAddPattern : TileToGpuPattern<AtomicAddOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(AtomicAddOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    Value value = a.getValue(), dest = a.getDest();
    SmallVector<Value> at(a.getIndices());
    emit.whenAll({emit.isFirstThread()}, [&](OpBuilder &tb, Location l) {
      memref::AtomicRMWOp::create(
          tb, l, isa<FloatType>(value.getType()) ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi, value,
          dest, at);
    });
    rw.eraseOp(op);
    return success();
  }
};

/// Every thread holds the element (tile-assign-layouts moved it to such a
/// layout): its first slot.
struct ToScalarPattern : TileToGpuPattern<ToScalarOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(ToScalarOp op, Adaptor a, ThreadEmitter &, ConversionPatternRewriter &rw) const override {
    if (!everyThreadHolds(op.getInput().getType()))
      return op.emitOpError() << "needs a fragment every thread holds (a replicated layout), got "
                              << op.getInput().getType();
    rw.replaceOpWithNewOp<vector::ExtractOp>(op, a.getInput(), ArrayRef<int64_t>{0});
    return success();
  }
};

struct PipelinePattern : TileToGpuPattern<PipelineOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(PipelineOp op, Adaptor, ThreadEmitter &, ConversionPatternRewriter &) const override {
    return op.emitOpError() << "must be rewritten by tile-pipeline-copies before tile-lower-to-gpu";
  }
};

} // namespace

void populateStructurePatterns(RewritePatternSet &set, const TypeConverter &converter, KernelStates &states) {
  addTileToGpuPatterns<ThreadTotalPattern, BlockSumPattern, AtomicAddPattern, ToScalarPattern, PipelinePattern>(
      set, converter, states);
}

} // namespace tk::compiler
