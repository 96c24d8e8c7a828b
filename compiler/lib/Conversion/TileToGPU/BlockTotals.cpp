//===- BlockTotals.cpp - a grid's block totals: per thread, then per block -===//
//
// tile.grid results (block totals) are summed in two steps. Per tile, each
// thread adds its slots of the yielded fragment that lie inside the tile to a
// running partial (a persistent block carries it from tile to tile in
// registers). After the block's last tile, the partials are combined once: an
// xor butterfly over the lanes (every lane ends with the same value, as
// addition is commutative), then the warps' sums through shared memory, added
// in warp order by every thread. So the total is the same on every thread and
// from run to run.
//===----------------------------------------------------------------------===//
#include "ThreadEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

static Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return reduceCombine(b, loc, tile::ReduceKind::sum, x, y);
}

Value ThreadEmitter::threadTotal(Value input, const BlockedLayout &l, Type type) {
  // Integers are summed in the element type and widened once (exact: a
  // thread holds few slots); floats are widened per element.
  Type elt = cast<VectorType>(input.getType()).getElementType();
  Type sumType = isa<IntegerType>(elt) ? elt : type;
  Value zero = arith::ConstantOp::create(b, loc, sumType, b.getZeroAttr(sumType)), total = zero;
  for (int64_t s = 0; s < l.slotsPerThread(); ++s) {
    Value v = vector::ExtractOp::create(b, loc, input, ArrayRef<int64_t>{s});
    if (v.getType() != sumType)
      v = arith::ExtFOp::create(b, loc, sumType, v);
    SmallVector<Value> inside;
    BlockedLayout::SlotPos pos = l.slotPos(s);
    for (int64_t d = 0; d < l.rank(); ++d)
      if (l.hasPadding(d))
        tileCoord(l, pos, d, &inside);
    if (!inside.empty())
      v = arith::SelectOp::create(b, loc, allTrue(inside), v, zero);
    total = add(b, loc, total, v);
  }
  return sumType == type ? total : Value(arith::ExtSIOp::create(b, loc, type, total));
}

Value shuffleXor(OpBuilder &b, Location loc, Value v, int32_t mask) {
  assert((v.getType().getIntOrFloatBitWidth() == 32 || v.getType().getIntOrFloatBitWidth() == 64) &&
         "shuffleXor moves 32- and 64-bit values: widen narrower ones first");
  if (v.getType().getIntOrFloatBitWidth() != 64)
    return gpu::ShuffleOp::create(b, loc, v, mask, 32, gpu::ShuffleMode::XOR).getShuffleResult();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value bits = isa<FloatType>(v.getType()) ? Value(arith::BitcastOp::create(b, loc, i64, v)) : v;
  Value c32 = arith::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(32));
  Value lo = arith::TruncIOp::create(b, loc, i32, bits);
  Value hi = arith::TruncIOp::create(b, loc, i32, arith::ShRUIOp::create(b, loc, bits, c32));
  lo = gpu::ShuffleOp::create(b, loc, lo, mask, 32, gpu::ShuffleMode::XOR).getShuffleResult();
  hi = gpu::ShuffleOp::create(b, loc, hi, mask, 32, gpu::ShuffleMode::XOR).getShuffleResult();
  Value joined = arith::OrIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
                                      arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi), c32));
  return isa<FloatType>(v.getType()) ? Value(arith::BitcastOp::create(b, loc, v.getType(), joined)) : joined;
}

Value ThreadEmitter::blockTotal(Value partial, int64_t numWarps) {
  Value v = partial;
  for (int32_t mask = 16; mask >= 1; mask /= 2)
    v = add(b, loc, v, shuffleXor(b, loc, v, mask));
  if (numWarps == 1)
    return v;
  auto space = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value buf = sharedBuffer(MemRefType::get({numWarps}, v.getType(), MemRefLayoutAttrInterface(), space));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0));
  whenAll({first}, [&](OpBuilder &wb, Location wl) { memref::StoreOp::create(wb, wl, v, buf, ValueRange{warp}); });
  gpu::BarrierOp::create(b, loc);
  Value total;
  for (int64_t w = 0; w < numWarps; ++w) {
    Value x = memref::LoadOp::create(b, loc, buf, ValueRange{index(w)});
    total = total ? add(b, loc, total, x) : x;
  }
  return total;
}

} // namespace tk::compiler
