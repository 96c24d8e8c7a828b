//===- IndexedPatterns.cpp - accesses at data-dependent positions ---------===//
#include "FragmentLayouts.h"
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
      v = emit.load(op, a.getSource(), at, *l, elt, a.getRows(), op.getSkipOutside());
    }
    rw.replaceOp(op, v);
    return success();
  }
};

/// Each chunk goes to the row its first slot names (nowhere for a negative
/// row or one past the end).
struct ScatterRowsPattern : TileToGpuPattern<ScatterRowsOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(ScatterRowsOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FailureOr<BlockedLayout> l = blockedOf(op, op.getValue().getType());
    if (failed(l))
      return failure();
    SmallVector<Value> at = {emit.index(0), a.getCol()}; // the row comes from `rows`
    emit.store(op, a.getValue(), a.getDest(), at, *l, a.getRows());
    rw.eraseOp(op);
    return success();
  }
};

/// A single element is held (at least) by thread 0, which writes it; larger
/// fragments are written element by element by the threads holding them
/// (slots in a layout's padding hold nothing), a reduction's result by one
/// thread of each group.
struct ScatterPattern : TileToGpuPattern<ScatterOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(ScatterOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getValue().getType();
    const bool add = op.getAdd();
    if (type.getNumElements() == 1) {
      Value first = emit.isFirstThread();
      Value value = vector::ExtractOp::create(rw, emit.loc, a.getValue(), ArrayRef<int64_t>{0});
      Value index = vector::ExtractOp::create(rw, emit.loc, a.getIndex(), ArrayRef<int64_t>{0});
      scf::IfOp::create(rw, emit.loc, first, [&](OpBuilder &tb, Location l) {
        emitScatter(tb, l, a.getDest(), index, value, add);
        scf::YieldOp::create(tb, l);
      });
      rw.eraseOp(op);
      return success();
    }
    if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout())) {
      // Each element is held by every thread of its group: the group's leader writes it (once, as an atomic
      // add must be), e.g. a row's top-K winners to a per-row table.
      FailureOr<Grouping> g = groupingOf(op, type);
      if (failed(g))
        return failure();
      if (g->inner)
        return op.emitOpError() << "scatters a reduction of a reduction (" << type.getNumElements()
                                << " elements): relayout it to a blocked layout first";
      Value leader = emit.groupLeader(g->g);
      for (int64_t r = 0; r < g->g.reducedSlots(); ++r) {
        SmallVector<Value> conds;
        if (leader)
          conds.push_back(leader);
        BlockedLayout::SlotPos pos = g->g.parent.slotPos(g->g.representativeSlot(r));
        for (int64_t d = 0; d < g->g.parent.rank(); ++d)
          emit.tileCoord(g->g.parent, pos, d, &conds);
        Value value = vector::ExtractOp::create(rw, emit.loc, a.getValue(), ArrayRef<int64_t>{r});
        Value index = vector::ExtractOp::create(rw, emit.loc, a.getIndex(), ArrayRef<int64_t>{r});
        emit.whenAll(conds, [&](OpBuilder &tb, Location tl) { emitScatter(tb, tl, a.getDest(), index, value, add); });
      }
      rw.eraseOp(op);
      return success();
    }
    FailureOr<BlockedLayout> l = blockedOf(op, type);
    if (failed(l))
      return failure();
    for (int64_t s = 0; s < l->slotsPerThread(); ++s) {
      BlockedLayout::SlotPos pos = l->slotPos(s);
      SmallVector<Value> inside;
      for (int64_t d = 0; d < l->rank(); ++d)
        emit.tileCoord(*l, pos, d, &inside);
      Value value = vector::ExtractOp::create(rw, emit.loc, a.getValue(), ArrayRef<int64_t>{s});
      Value index = vector::ExtractOp::create(rw, emit.loc, a.getIndex(), ArrayRef<int64_t>{s});
      emit.whenAll(inside, [&](OpBuilder &tb, Location tl) { emitScatter(tb, tl, a.getDest(), index, value, add); });
    }
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
  addTileToGpuPatterns<GatherRowsPattern, ScatterRowsPattern, ScatterPattern, GatherPattern>(set, converter, states);
}

} // namespace tk::compiler
