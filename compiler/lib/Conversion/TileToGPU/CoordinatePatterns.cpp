//===- CoordinatePatterns.cpp - tile.iota per thread ----------------------===//
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// Each slot's coordinate along `dim`: its static place in the layout plus
/// the thread's first coordinate there (ThreadEmitter::tileCoord).
struct IotaPattern : TileToGpuPattern<IotaOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(IotaOp op, Adaptor, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    const int64_t dim = op.getDim();
    SmallVector<Value> coords;
    auto add = [&](Value coord) {
      coords.push_back(arith::IndexCastOp::create(rw, emit.loc, type.getElementType(), coord));
    };
    if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout())) {
      // A reduced fragment's slot holds a group: its coordinate is the group's
      // (the root layout's coordinate divided by the group, and the inner one's).
      FailureOr<Grouping> grouping = groupingOf(op, type);
      if (failed(grouping))
        return failure();
      const GroupedReduction &g = grouping->g;
      const GroupedReduction *inner = innerOf(*grouping);
      // Along a padded dimension reduced whole, the padding positions hold group 0 as well (Access.cpp's loads).
      const bool wholePadded = g.spansPaddedDim(dim) || (inner && inner->spansPaddedDim(dim));
      for (int64_t r = 0; r < g.reducedSlots(); ++r) {
        if (wholePadded) {
          add(emit.index(0));
          continue;
        }
        Value t = emit.tileCoord(g.parent, g.parent.slotPos(g.representativeSlot(r)), dim);
        if (dim == g.dim)
          t = arith::DivUIOp::create(rw, emit.loc, t, emit.index(g.group));
        if (inner && dim == inner->dim)
          t = arith::DivUIOp::create(rw, emit.loc, t, emit.index(inner->group));
        add(t);
      }
    } else {
      FailureOr<BlockedLayout> l = blockedOf(op, type);
      if (failed(l))
        return failure();
      for (int64_t s = 0; s < l->slotsPerThread(); ++s)
        add(emit.tileCoord(*l, l->slotPos(s), dim));
    }
    auto vector = VectorType::get({(int64_t)coords.size()}, type.getElementType());
    rw.replaceOp(op, vector::FromElementsOp::create(rw, emit.loc, vector, coords));
    return success();
  }
};

} // namespace

void populateCoordinatePatterns(RewritePatternSet &set, const TypeConverter &converter, KernelStates &states) {
  addTileToGpuPatterns<IotaPattern>(set, converter, states);
}

} // namespace tk::compiler
