//===- AsyncCopy.cpp - tile.copy {async} as cp.async per thread -----------===//
#include "Distribute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;

namespace tk::compiler {

bool ThreadEmitter::asyncCopy(Operation *op, Value source, ValueRange origin, Value dest, const BlockedLayout &l,
                              Type elt) {
  int64_t eltBytes = std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
  // The source side decides the chunk (vectorized, aligned); the shared
  // buffer is a whole tile, so only its alignment can spoil it.
  bool saved = remarks;
  remarks = false;
  AccessPlan src = planAccess(op, source, origin, l, elt);
  SmallVector<Value> zeros(l.rank(), index(0));
  AccessPlan dst = planAccess(op, dest, zeros, l, elt);
  remarks = saved;
  int64_t bytes = src.chunk * eltBytes;
  std::string why;
  if (!src.vectorized || !dst.vectorized)
    why = "its chunks are not whole vectors in the source or the buffer";
  else if (bytes != 4 && bytes != 8 && bytes != 16)
    why = "its " + std::to_string(bytes) + "-byte chunks are not a cp.async size (4, 8 or 16)";
  else if (src.alignment < bytes || dst.alignment < bytes)
    why = "the source or the buffer is aligned to fewer than " + std::to_string(bytes) + " bytes";
  if (!why.empty()) {
    if (remarks)
      op->emitRemark() << "copy into " << dest.getType() << " is synchronous (no cp.async): " << why;
    return false;
  }
  for (int64_t s = 0; s < l.slotsPerThread(); s += src.chunk) {
    BlockedLayout::SlotPos pos = l.slotPos(s);
    SmallVector<Value> coords, inTile;
    for (int64_t d = 0; d < l.rank(); ++d) {
      Value t = arith::AddIOp::create(b, loc, index(l.staticCoord(pos, d)), threadCoord(l, d));
      inTile.push_back(t);
      coords.push_back(arith::AddIOp::create(b, loc, origin[d], t));
    }
    SmallVector<Value> conds = bounds(source, coords, l, pos, inTile);
    Value srcElements;
    if (!conds.empty()) {
      // Outside the source: read nothing from its first element, zero-fill
      // the chunk. Padding slots of the layout (past the tile) write nothing.
      Value inside = allTrue(conds);
      for (Value &c : coords)
        c = arith::SelectOp::create(b, loc, inside, c, index(0));
      srcElements = arith::SelectOp::create(b, loc, inside, index(src.chunk), index(0));
    }
    auto copy = [&](OpBuilder &cb, Location cl) {
      nvgpu::DeviceAsyncCopyOp::create(cb, cl, dest, inTile, source, coords, cb.getIndexAttr(src.chunk),
                                       srcElements, bytes == 16 ? cb.getUnitAttr() : UnitAttr());
    };
    SmallVector<Value> inBuffer;
    for (int64_t d = 0; d < l.rank(); ++d)
      if (l.hasPadding(d))
        inBuffer.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, inTile[d], index(l.shape[d])));
    whenAll(inBuffer, copy);
  }
  return true;
}

} // namespace tk::compiler
