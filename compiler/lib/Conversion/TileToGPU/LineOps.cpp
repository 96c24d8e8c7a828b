//===- LineOps.cpp - tile.scan and tile.count_equal through shared memory -===//
//
// Both ops combine the elements of a line (the elements that differ only in
// their coordinate along `dim`), which any layout may spread over lanes,
// warps and a thread's slots. They go through a shared buffer of the tile's
// shape, so that one lowering holds for every layout: each thread writes its
// elements, the block synchronizes, and each thread reads what it needs.
//  - scan: log2(n) steps of Hillis and Steele (element i adds the element
//    2^k before it); integer sums, so the order does not change the result.
//  - count_equal: each element compares its key with the n keys of its line;
//    when the line is exactly the 32 lanes of a warp, one element each (a
//    warp per line of 32, as MoE's slot ranking lays it out), match.any.sync
//    gives the lanes holding an equal key at once, and no shared memory.
// Both synchronize again at the end, so that the buffer is free for the
// block's next op.
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// The fragment in a fresh shared buffer of its shape, and each slot's
/// coordinates there, clamped into the tile (a layout's padding slots hold
/// no element; what they read is never used).
struct LineBuffer {
  Value buf;
  SmallVector<SmallVector<Value>> coords; ///< per slot, per dimension
};

FailureOr<BlockedLayout> lineLayout(Operation *op, FragmentType type) {
  if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout()))
    return op->emitOpError() << "on a reduced fragment (a reduction's result): store it to a shared buffer and "
                                "load it back (a blocked layout) first";
  return blockedOf(op, type);
}

/// The buffer and the slots' coordinates (nothing written yet).
LineBuffer lineBuffer(ThreadEmitter &emit, FragmentType type, const BlockedLayout &l) {
  OpBuilder &b = emit.b;
  Location loc = emit.loc;
  LineBuffer lb;
  auto space = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Type elt = storageType(type.getElementType());
  lb.buf = emit.sharedBuffer(MemRefType::get(type.getShape(), elt, MemRefLayoutAttrInterface(), space));
  for (int64_t s = 0; s < l.slotsPerThread(); ++s) {
    BlockedLayout::SlotPos pos = l.slotPos(s);
    SmallVector<Value> at;
    for (int64_t d = 0; d < l.rank(); ++d) {
      Value c = emit.tileCoord(l, pos, d);
      if (l.hasPadding(d))
        c = arith::MinUIOp::create(b, loc, c, emit.index(type.getShape()[d] - 1));
      at.push_back(c);
    }
    lb.coords.push_back(at);
  }
  return lb;
}

/// Every thread writes its elements of `value`, then the block synchronizes.
void writeLine(Operation *op, ThreadEmitter &emit, const LineBuffer &lb, Value value, const BlockedLayout &l) {
  SmallVector<Value> zeros(l.rank(), emit.index(0));
  emit.store(op, value, lb.buf, zeros, l);
  gpu::BarrierOp::create(emit.b, emit.loc);
}

Value slotOf(OpBuilder &b, Location loc, Value vec, int64_t s) {
  return vector::ExtractOp::create(b, loc, vec, ArrayRef<int64_t>{s});
}

Value vectorOf(OpBuilder &b, Location loc, ArrayRef<Value> slots) {
  return vector::FromElementsOp::create(b, loc, VectorType::get({(int64_t)slots.size()}, slots[0].getType()), slots);
}

struct ScanPattern : TileToGpuPattern<ScanOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(ScanOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getInput().getType();
    FailureOr<BlockedLayout> l = lineLayout(op, type);
    if (failed(l))
      return failure();
    const int64_t dim = op.getDim(), n = type.getShape()[dim], slots = l->slotsPerThread();
    Location loc = emit.loc;
    Type elt = storageType(type.getElementType());
    Value zero = arith::ConstantOp::create(rw, loc, rw.getZeroAttr(elt));
    Value vals = a.getInput();
    LineBuffer lb = lineBuffer(emit, type, *l);
    for (int64_t step = 1; step < n; step *= 2) {
      writeLine(op, emit, lb, vals, *l);
      SmallVector<Value> next;
      for (int64_t s = 0; s < slots; ++s) {
        SmallVector<Value> at = lb.coords[s];
        Value c = at[dim];
        Value has = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::uge, c, emit.index(step));
        at[dim] = arith::SelectOp::create(rw, loc, has, arith::SubIOp::create(rw, loc, c, emit.index(step)), c);
        Value earlier = memref::LoadOp::create(rw, loc, lb.buf, at);
        earlier = arith::SelectOp::create(rw, loc, has, earlier, zero);
        next.push_back(arith::AddIOp::create(rw, loc, slotOf(rw, loc, vals, s), earlier));
      }
      gpu::BarrierOp::create(rw, loc); // every read done before the next step's writes
      vals = vectorOf(rw, loc, next);
    }
    if (op.getExclusive())
      vals = arith::SubIOp::create(rw, loc, vals, a.getInput());
    rw.replaceOp(op, vals);
    return success();
  }
};

struct CountEqualPattern : TileToGpuPattern<CountEqualOp> {
  using TileToGpuPattern::TileToGpuPattern;

  /// Each slot's line is the warp's 32 lanes in lane order: the lanes with
  /// an equal key (match.any.sync), counted below the own lane or all.
  static Value warpMatch(CountEqualOp op, Value keys, const BlockedLayout &l, ThreadEmitter &emit,
                         ConversionPatternRewriter &rw) {
    Location loc = emit.loc;
    auto i32 = rw.getI32Type();
    auto constant = [&](int64_t v) { return arith::ConstantOp::create(rw, loc, rw.getI32IntegerAttr(v)); };
    Value lane = arith::IndexCastOp::create(rw, loc, i32, emit.lane);
    Value below = arith::SubIOp::create(rw, loc, arith::ShLIOp::create(rw, loc, constant(1), lane), constant(1));
    SmallVector<Value> counts;
    for (int64_t s = 0; s < l.slotsPerThread(); ++s) {
      Value key = slotOf(rw, loc, keys, s);
      if (key.getType().getIntOrFloatBitWidth() < 32) // match.sync compares 32 or 64 bits
        key = arith::ExtSIOp::create(rw, loc, i32, key);
      Value mask = NVVM::MatchSyncOp::create(rw, loc, i32, constant(-1), key, NVVM::MatchSyncKind::any);
      if (op.getBefore())
        mask = arith::AndIOp::create(rw, loc, mask, below);
      counts.push_back(math::CtPopOp::create(rw, loc, mask));
    }
    return vectorOf(rw, loc, counts);
  }

  LogicalResult lower(CountEqualOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getKeys().getType();
    FailureOr<BlockedLayout> l = lineLayout(op, type);
    if (failed(l))
      return failure();
    const int64_t dim = op.getDim(), n = type.getShape()[dim];
    Location loc = emit.loc;
    if (n == 32 && l->vec[dim] == 1 && l->lanes[dim] == 32 && l->warps[dim] == 1) {
      rw.replaceOp(op, warpMatch(op, a.getKeys(), *l, emit, rw));
      return success();
    }
    LineBuffer lb = lineBuffer(emit, type, *l);
    writeLine(op, emit, lb, a.getKeys(), *l);
    Value zero = arith::ConstantOp::create(rw, loc, rw.getI32IntegerAttr(0));
    SmallVector<Value> counts;
    for (int64_t s = 0; s < l->slotsPerThread(); ++s) {
      Value key = slotOf(rw, loc, a.getKeys(), s);
      SmallVector<Value> at = lb.coords[s];
      Value mine = at[dim];
      auto loop =
          scf::ForOp::create(rw, loc, emit.index(0), emit.index(n), emit.index(1), ValueRange{zero},
                             [&](OpBuilder &fb, Location fl, Value j, ValueRange acc) {
                               SmallVector<Value> other = at;
                               other[dim] = j;
                               Value k = memref::LoadOp::create(fb, fl, lb.buf, other);
                               Value equal = arith::CmpIOp::create(fb, fl, arith::CmpIPredicate::eq, k, key);
                               if (op.getBefore())
                                 equal = arith::AndIOp::create(
                                     fb, fl, equal, arith::CmpIOp::create(fb, fl, arith::CmpIPredicate::ult, j, mine));
                               Value one = arith::ExtUIOp::create(fb, fl, fb.getI32Type(), equal);
                               scf::YieldOp::create(fb, fl, ValueRange{arith::AddIOp::create(fb, fl, acc[0], one)});
                             });
      counts.push_back(loop.getResult(0));
    }
    gpu::BarrierOp::create(rw, loc); // every read done before the buffer's next use
    rw.replaceOp(op, vectorOf(rw, loc, counts));
    return success();
  }
};

} // namespace

void populateLinePatterns(RewritePatternSet &set, const TypeConverter &converter, KernelStates &states) {
  addTileToGpuPatterns<ScanPattern, CountEqualPattern>(set, converter, states);
}

} // namespace tk::compiler
