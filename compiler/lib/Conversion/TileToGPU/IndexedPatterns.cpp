//===- IndexedPatterns.cpp - accesses at data-dependent positions ---------===//
#include "Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// Each chunk reads the row its first slot names (zero for a negative row
/// or one past the end).
struct GatherRowsPattern : TileToGpuPattern<GatherRowsOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(GatherRowsOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Type elt = storageType(type.getElementType());
    SmallVector<Value> at = {emit.index(0), a.getCol()}; // the row comes from `rows`
    Value v;
    if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout())) {
      FailureOr<Grouping> g = groupingOf(op, type);
      if (failed(g))
        return failure();
      v = emit.loadReduced(a.getSource(), at, g->g, elt, innerOf(*g), 0, a.getRows());
    } else {
      FailureOr<BlockedLayout> l = blockedOf(op, type);
      if (failed(l))
        return failure();
      v = emit.load(op, a.getSource(), at, *l, elt, a.getRows());
    }
    rw.replaceOp(op, v);
    return success();
  }
};

/// One element, held (at least) by thread 0, which writes it.
struct ScatterPattern : TileToGpuPattern<ScatterOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(ScatterOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    Value first = emit.isFirstThread();
    Value value = vector::ExtractOp::create(rw, emit.loc, a.getValue(), ArrayRef<int64_t>{0});
    Value index = vector::ExtractOp::create(rw, emit.loc, a.getIndex(), ArrayRef<int64_t>{0});
    scf::IfOp::create(rw, emit.loc, first, [&](OpBuilder &tb, Location l) {
      emitScatter(tb, l, a.getDest(), index, value);
      scf::YieldOp::create(tb, l);
    });
    rw.eraseOp(op);
    return success();
  }
};

/// One guarded scalar load per element of the thread.
struct GatherPattern : TileToGpuPattern<GatherOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(GatherOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    Type elt = storageType(op.getResult().getType().getElementType());
    rw.replaceOp(op, emitGather(rw, emit.loc, a.getSource(), a.getIndex(), elt));
    return success();
  }
};

} // namespace

void populateIndexedPatterns(RewritePatternSet &set, const TypeConverter &converter, KernelStates &states) {
  addTileToGpuPatterns<GatherRowsPattern, ScatterPattern, GatherPattern>(set, converter, states);
}

} // namespace tk::compiler
