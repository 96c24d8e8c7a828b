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
    FailureOr<BlockedLayout> l = blockedOf(op, type);
    if (failed(l))
      return failure();
    SmallVector<Value> coords;
    for (int64_t s = 0; s < l->slotsPerThread(); ++s)
      coords.push_back(arith::IndexCastOp::create(rw, emit.loc, type.getElementType(),
                                                  emit.tileCoord(*l, l->slotPos(s), op.getDim())));
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
