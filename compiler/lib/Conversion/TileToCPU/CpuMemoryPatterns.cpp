//===- CpuMemoryPatterns.cpp - tile memory ops and block totals as loops ---===//
#include "CpuPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// Zero outside the tensor.
struct LoadPattern : TileToCpuPattern<LoadOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(LoadOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type), src = a.getSource();
    SmallVector<Value> origin(a.getIndices());
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      SmallVector<Value> at = emit.offset(ib, origin, ivs, op.getSplitLast());
      memref::StoreOp::create(ib, l, emit.maskedRead(ib, src, at), buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

/// Elements outside the tensor are dropped; atomic_add adds each once; with a
/// mask, only the elements whose mask is nonzero are written.
struct StorePattern : TileToCpuPattern<StoreOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(StoreOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    Value buf = a.getValue(), dst = a.getDest(), mask = a.getMask();
    SmallVector<Value> origin(a.getIndices());
    emit.loopNest(op.getValue().getType().getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      SmallVector<Value> at = emit.offset(ib, origin, ivs, op.getSplitLast());
      auto write = [&](OpBuilder &wb) {
        emit.maskedWrite(wb, memref::LoadOp::create(wb, l, buf, ivs), dst, at, op.getAtomicAdd());
      };
      if (!mask)
        return write(ib);
      Value m = memref::LoadOp::create(ib, l, mask, ivs);
      Value set = arith::CmpIOp::create(ib, l, arith::CmpIPredicate::ne, m,
                                        arith::ConstantOp::create(ib, l, m.getType(), ib.getZeroAttr(m.getType())));
      auto ifOp = scf::IfOp::create(ib, l, set, /*withElseRegion=*/false);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      write(tb);
    });
    rw.eraseOp(op);
    return success();
  }
};

/// A shared buffer is an ordinary one (one block runs at a time).
struct AllocPattern : TileToCpuPattern<AllocOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(AllocOp op, Adaptor, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, emit.buffer(cast<MemRefType>(cpuMemRefType(op.getBuffer().getType()))));
    return success();
  }
};

/// Copies are plain loops, complete at once (asynchronous ones too).
struct CopyPattern : TileToCpuPattern<CopyOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(CopyOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    Value src = a.getSource(), dst = a.getDest();
    SmallVector<Value> origin(a.getIndices());
    emit.loopNest(op.getDest().getType().getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      memref::StoreOp::create(ib, l, emit.maskedRead(ib, src, emit.offset(ib, origin, ivs)), dst, ivs);
    });
    rw.eraseOp(op);
    return success();
  }
};

/// Nothing to wait for: one block runs at a time and copies complete at once.
template <typename Op> struct NothingPattern : TileToCpuPattern<Op> {
  using TileToCpuPattern<Op>::TileToCpuPattern;
  LogicalResult lower(Op op, typename Op::Adaptor, CpuEmitter &, ConversionPatternRewriter &rw) const override {
    rw.eraseOp(op);
    return success();
  }
};

/// A version of a multi-buffered shared tile: the same view of the converted buffer.
struct SubViewPattern : OpConversionPattern<memref::SubViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(memref::SubViewOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    IRMapping map;
    map.map(op.getSource(), a.getSource());
    Operation *view = rw.clone(*op, map);
    view->getResult(0).setType(cpuMemRefType(op.getType()));
    rw.replaceOp(op, view->getResults());
    return success();
  }
};

/// Not pipelined: the plain loop it means.
struct PipelinePattern : TileToCpuPattern<PipelineOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(PipelineOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    if (!op.getInits().empty()) // the CPU pipeline runs tile-pipeline-copies first, which makes them scf.for's
      return op.emitOpError() << "with carried values must be rewritten by tile-pipeline-copies first";
    auto loop = scf::ForOp::create(rw, emit.loc, a.getLowerBound(), a.getUpperBound(), emit.index(1));
    Block &body = op.getBody().front();
    rw.eraseOp(body.getTerminator());
    rw.inlineBlockBefore(&body, loop.getBody()->getTerminator(), loop.getInductionVar());
    rw.eraseOp(op);
    return success();
  }
};

/// Every element of the fragment (the one "thread" holds them all), each
/// widened to the total's type.
struct ThreadTotalPattern : TileToCpuPattern<ThreadTotalOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(ThreadTotalOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d : op.getInput().getType().getShape()) {
      lbs.push_back(emit.index(0));
      ubs.push_back(emit.index(d));
      steps.push_back(emit.index(1));
    }
    Type type = op.getType();
    Value zero = arith::ConstantOp::create(rw, emit.loc, type, rw.getZeroAttr(type));
    scf::LoopNest nest = scf::buildLoopNest(
        rw, emit.loc, lbs, ubs, steps, ValueRange{zero},
        [&](OpBuilder &ib, Location l, ValueRange ivs, ValueRange acc) -> scf::ValueVector {
          Value v = memref::LoadOp::create(ib, l, a.getInput(), ivs);
          if (v.getType() != type)
            v = isa<FloatType>(type) ? Value(arith::ExtFOp::create(ib, l, type, v))
                                     : Value(arith::ExtSIOp::create(ib, l, type, v));
          return {reduceCombine(ib, l, ReduceKind::sum, acc[0], v)};
        });
    rw.replaceOp(op, nest.results[0]);
    return success();
  }
};

/// One block at a time, one "thread": its partial is the total.
struct BlockSumPattern : TileToCpuPattern<BlockSumOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(BlockSumOp op, Adaptor a, CpuEmitter &, ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, a.getPartial());
    return success();
  }
};

struct AtomicAddPattern : TileToCpuPattern<AtomicAddOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(AtomicAddOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    emit.maskedWrite(rw, a.getValue(), a.getDest(), SmallVector<Value>(a.getIndices()), /*atomicAdd=*/true);
    rw.eraseOp(op);
    return success();
  }
};

/// Zero for a negative row (or one past the end).
struct GatherRowsPattern : TileToCpuPattern<GatherRowsOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(GatherRowsOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type), rows = a.getRows(), src = a.getSource(), col = a.getCol();
    Type elt = storageType(type.getElementType());
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value row = memref::LoadOp::create(ib, l, rows, ivs);
      Value zero = arith::ConstantOp::create(ib, l, ib.getI32IntegerAttr(0));
      Value rowOk = arith::CmpIOp::create(ib, l, arith::CmpIPredicate::sge, row, zero);
      Value safeRow =
          arith::IndexCastOp::create(ib, l, ib.getIndexType(), arith::SelectOp::create(ib, l, rowOk, row, zero));
      SmallVector<Value> at = {safeRow, arith::AddIOp::create(ib, l, col, ivs[1])};
      auto guarded = scf::IfOp::create(
          ib, l, rowOk,
          [&](OpBuilder &tb, Location tl) { scf::YieldOp::create(tb, tl, ValueRange{emit.maskedRead(tb, src, at)}); },
          [&](OpBuilder &eb, Location el) {
            scf::YieldOp::create(eb, el, ValueRange{arith::ConstantOp::create(eb, el, eb.getZeroAttr(elt))});
          });
      memref::StoreOp::create(ib, l, guarded.getResult(0), buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

/// Every element in order (the one "thread" holds them all).
struct ScatterPattern : TileToCpuPattern<ScatterOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(ScatterOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    Value values = a.getValue(), indices = a.getIndex(), dest = a.getDest();
    const bool add = op.getAdd();
    emit.loopNest(op.getValue().getType().getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      emitScatter(ib, l, dest, memref::LoadOp::create(ib, l, indices, ivs), memref::LoadOp::create(ib, l, values, ivs),
                  add);
    });
    rw.eraseOp(op);
    return success();
  }
};

/// Nothing written for a negative row (or one past the end).
struct ScatterRowsPattern : TileToCpuPattern<ScatterRowsOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(ScatterRowsOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    Value values = a.getValue(), rows = a.getRows(), dst = a.getDest(), col = a.getCol();
    emit.loopNest(op.getValue().getType().getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value row = memref::LoadOp::create(ib, l, rows, ivs);
      Value zero = arith::ConstantOp::create(ib, l, ib.getI32IntegerAttr(0));
      Value rowOk = arith::CmpIOp::create(ib, l, arith::CmpIPredicate::sge, row, zero);
      scf::IfOp::create(ib, l, rowOk, [&](OpBuilder &tb, Location tl) {
        SmallVector<Value> at = {arith::IndexCastOp::create(tb, tl, tb.getIndexType(), row),
                                 arith::AddIOp::create(tb, tl, col, ivs[1])};
        emit.maskedWrite(tb, memref::LoadOp::create(tb, tl, values, ivs), dst, at, /*atomicAdd=*/false);
        scf::YieldOp::create(tb, tl);
      });
    });
    rw.eraseOp(op);
    return success();
  }
};

struct GatherPattern : TileToCpuPattern<GatherOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(GatherOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type), index = a.getIndex(), source = a.getSource();
    Type elt = storageType(type.getElementType());
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value v = emitGather(ib, l, source, memref::LoadOp::create(ib, l, index, ivs), elt);
      memref::StoreOp::create(ib, l, v, buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

} // namespace

void populateCpuMemoryPatterns(RewritePatternSet &set, const TypeConverter &converter, CpuKernelStates &states) {
  addTileToCpuPatterns<LoadPattern, StorePattern, AllocPattern, CopyPattern, NothingPattern<CommitCopiesOp>,
                       NothingPattern<WaitCopiesOp>, NothingPattern<BarrierOp>, NothingPattern<InitBarriersOp>,
                       NothingPattern<WaitBarrierOp>, PipelinePattern, ThreadTotalPattern, BlockSumPattern,
                       AtomicAddPattern, GatherRowsPattern, ScatterPattern, ScatterRowsPattern,
                       GatherPattern>(set, converter, states);
  set.add<SubViewPattern>(converter, set.getContext());
}

} // namespace tk::compiler
