//===- CpuCoordinatePatterns.cpp - tile.iota as a loop --------------------===//
#include "CpuPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

struct IotaPattern : TileToCpuPattern<IotaOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(IotaOp op, Adaptor, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type);
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value c = arith::IndexCastOp::create(ib, l, type.getElementType(), ivs[op.getDim()]);
      memref::StoreOp::create(ib, l, c, buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

} // namespace

void populateCpuCoordinatePatterns(RewritePatternSet &set, const TypeConverter &converter, CpuKernelStates &states) {
  addTileToCpuPatterns<IotaPattern>(set, converter, states);
}

} // namespace tk::compiler
