//===- LowerReduce.cpp - grouped reductions: thread, warp, block ----------===//
//
// A group is reduced in three fixed-order steps, so every thread of the group
// ends with the same, deterministic value: (1) the thread's own slots in slot
// order, (2) a butterfly of xor shuffles over the group's lanes, (3) when the
// group spans warps, each warp's value goes through shared memory and every
// thread combines them in warp order.
//===----------------------------------------------------------------------===//
#include "ThreadEmitter.h"

#include <set>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tk;

namespace tk::compiler {

Value ThreadEmitter::reduce(tile::ReduceKind kind, Value input, const GroupedReduction &g,
                            const GroupedReduction *inner) {
  const BlockedLayout &l = g.parent;
  Type elt = cast<VectorType>(input.getType()).getElementType();
  int64_t numReduced = g.reducedSlots();
  Value init = reduceIdentity(b, loc, kind, elt);
  SmallVector<Value> acc(numReduced, init);

  // Reduced slots whose groups lie in one group of an earlier reduction
  // (`inner`) hold the same value: steps 2 and 3 combine one of each class.
  SmallVector<int64_t> classOf(numReduced), classes;
  {
    llvm::DenseMap<int64_t, int64_t> classOfKey;
    for (int64_t r = 0; r < numReduced; ++r) {
      int64_t key = inner ? inner->reducedSlotOf(g.representativeSlot(r)) : r;
      auto [it, added] = classOfKey.try_emplace(key, (int64_t)classes.size());
      if (added)
        classes.push_back(r);
      classOf[r] = it->second;
    }
  }
  int64_t numClasses = (int64_t)classes.size();

  // (1) In-thread, in slot order; padding slots past the tile contribute the
  // identity. max, min and absmax take each value once: slots that come from
  // one element of an expansion (a scale per block) are combined once.
  const bool idempotent = kind != tile::ReduceKind::sum && !l.hasPadding(g.dim);
  std::set<std::tuple<int64_t, void *, int64_t>> combined; // (reduced slot, source, index there)
  for (int64_t s = 0; s < l.slotsPerThread(); ++s) {
    int64_t r = g.reducedSlotOf(s);
    if (classes[classOf[r]] != r)
      continue; // a copy of another class's slot
    if (idempotent) {
      auto [source, at] = slotSource(input, s);
      if (!combined.insert({r, source.getAsOpaquePointer(), at}).second)
        continue; // the same value again
    }
    Value v = vector::ExtractOp::create(b, loc, input, ArrayRef<int64_t>{s});
    if (kind == tile::ReduceKind::absmax)
      v = absoluteValue(b, loc, v);
    if (l.hasPadding(g.dim)) {
      SmallVector<Value, 1> inside;
      tileCoord(l, l.slotPos(s), g.dim, &inside);
      v = arith::SelectOp::create(b, loc, inside[0], v, init);
    }
    acc[r] = reduceCombine(b, loc, kind, acc[r], v);
  }

  // 16-bit floats cross lanes and warps as f32 (shuffles move 32-bit values;
  // 64-bit ones move as two halves); exact for max/min/absmax, whose result
  // is one of the inputs.
  Type narrow = elt.getIntOrFloatBitWidth() < 32 && isa<FloatType>(elt) ? elt : Type();
  SmallVector<Value> cls;
  for (int64_t r : classes)
    cls.push_back(acc[r]);
  if (narrow && (!g.laneMasks.empty() || g.warpsPerGroup > 1)) {
    for (Value &a : cls)
      a = arith::ExtFOp::create(b, loc, b.getF32Type(), a);
    elt = b.getF32Type();
  }

  // (2) Butterfly over the group's lanes.
  for (int64_t mask : g.laneMasks)
    for (Value &a : cls) {
      a = reduceCombine(b, loc, kind, a, shuffleXor(b, loc, a, (int32_t)mask));
    }

  // (3) Across warps through shared memory, combined in warp order. The
  // lanes of one group (and of one inner group) hold equal values and the
  // lowest one writes, into row `slot` of its warp: the lane id with those
  // lane bits squeezed out. Every lane reads the row of its own lane id.
  if (g.warpsPerGroup > 1) {
    int64_t numWarps = l.numWarps();
    int64_t groupLaneBits = 0;
    for (int64_t m : g.laneMasks)
      groupLaneBits |= m;
    if (inner)
      for (int64_t m : inner->laneMasks)
        groupLaneBits |= m;
    Value slot = index(0);
    int64_t writers = 0;
    for (int64_t bit = 0; bit < 5; ++bit) {
      if (groupLaneBits & (int64_t(1) << bit))
        continue;
      Value bitValue = arith::AndIOp::create(b, loc, lane, index(int64_t(1) << bit));
      Value placed = bit > writers ? Value(arith::ShRUIOp::create(b, loc, bitValue, index(bit - writers)))
                                   : bitValue;
      slot = arith::OrIOp::create(b, loc, slot, placed);
      ++writers;
    }
    auto space = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
    auto bufType = MemRefType::get({numWarps, int64_t(1) << writers, numClasses}, elt, MemRefLayoutAttrInterface(),
                                   space);
    Value buf = sharedBuffer(bufType);
    Value laneBase = arith::AndIOp::create(b, loc, lane, index(~groupLaneBits & 31));
    Value isWriter = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, laneBase);
    whenAll({isWriter}, [&](OpBuilder &wb, Location wl) {
      for (int64_t c = 0; c < numClasses; ++c)
        memref::StoreOp::create(wb, wl, cls[c], buf, ValueRange{warp, slot, index(c)});
    });
    gpu::BarrierOp::create(b, loc);
    int64_t stride = l.warpStride(g.dim);
    Value warpD = warpCoord(l, g.dim);
    Value first = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, warpD, index(g.warpsPerGroup)), index(g.warpsPerGroup));
    Value otherDims = arith::SubIOp::create(b, loc, warp, arith::MulIOp::create(b, loc, warpD, index(stride)));
    for (int64_t c = 0; c < numClasses; ++c) {
      Value total;
      for (int64_t j = 0; j < g.warpsPerGroup; ++j) {
        Value w = arith::AddIOp::create(
            b, loc, otherDims,
            arith::MulIOp::create(b, loc, arith::AddIOp::create(b, loc, first, index(j)), index(stride)));
        Value v = memref::LoadOp::create(b, loc, buf, ValueRange{w, slot, index(c)});
        total = total ? reduceCombine(b, loc, kind, total, v) : v;
      }
      cls[c] = total;
    }
    gpu::BarrierOp::create(b, loc);
  }
  if (narrow && elt != narrow)
    for (Value &a : cls)
      a = arith::TruncFOp::create(b, loc, narrow, a);
  for (int64_t r = 0; r < numReduced; ++r)
    acc[r] = cls[classOf[r]];
  auto type = VectorType::get({numReduced}, narrow ? narrow : elt);
  return vector::FromElementsOp::create(b, loc, type, acc);
}

} // namespace tk::compiler
