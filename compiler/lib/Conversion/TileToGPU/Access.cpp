//===- Access.cpp - per-thread loads and stores of tiles: widths, bounds, masks ===//
#include "ThreadEmitter.h"
#include "tk/compiler/ElementBytes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include <map>

using namespace mlir;
using namespace tk;

namespace tk::compiler {

void ThreadEmitter::chunkCoords(const BlockedLayout &l, const BlockedLayout::SlotPos &pos, ValueRange origin,
                                SmallVectorImpl<Value> &coords, SmallVectorImpl<Value> &inTile) {
  for (int64_t d = 0; d < l.rank(); ++d) {
    Value t = tileCoord(l, pos, d);
    inTile.push_back(t);
    coords.push_back(arith::AddIOp::create(b, loc, origin[d], t));
  }
}

bool ThreadEmitter::isMultipleOf(Value v, int64_t m) {
  if (m <= 1)
    return true;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue() % m == 0;
  if (auto mul = v.getDefiningOp<arith::MulIOp>())
    return isMultipleOf(mul.getLhs(), m) || isMultipleOf(mul.getRhs(), m);
  if (auto add = v.getDefiningOp<arith::AddIOp>())
    return isMultipleOf(add.getLhs(), m) && isMultipleOf(add.getRhs(), m);
  return false;
}

int64_t ThreadEmitter::accessAlignment(Value mem, int64_t chunkBytes) {
  auto it = alignment.find(mem);
  int64_t promised = it == alignment.end() ? 1 : it->second;
  // The largest power of two that divides the chunk (a 12-byte chunk of
  // thread t starts at 12 t: 4-byte aligned) and that the tensor promises.
  int64_t a = 1;
  while (a * 2 <= promised && chunkBytes % (a * 2) == 0)
    a *= 2;
  return a;
}

bool ThreadEmitter::tileInOneStretch(Value mem, int64_t d, Value origin, int64_t tileSize) {
  auto type = cast<MemRefType>(mem.getType());
  const int64_t extent = type.isDynamicDim(d) ? dimMultiple(mem, d) : type.getDimSize(d);
  for (int64_t c = tileSize; c > 0 && c <= extent; c *= 2)
    if (extent % c == 0 && isMultipleOf(origin, c))
      return true;
  return false;
}

bool ThreadEmitter::originInside(Value mem, int64_t d, Value origin) {
  auto mul = origin.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return false;
  for (auto [blk, factor] : {std::pair{mul.getLhs(), mul.getRhs()}, std::pair{mul.getRhs(), mul.getLhs()}}) {
    auto it = blockIndexTiles.find(blk);
    APInt c;
    if (it == blockIndexTiles.end() || !matchPattern(factor, m_ConstantInt(&c)) ||
        c.getSExtValue() != it->second.second)
      continue;
    // The grid's extent divides this very dimension of this tensor.
    auto dim = it->second.first.getDefiningOp<memref::DimOp>();
    APInt at;
    if (dim && dim.getSource() == mem && matchPattern(dim.getIndex(), m_ConstantInt(&at)) && at.getSExtValue() == d)
      return true;
  }
  return false;
}

SmallVector<Value> ThreadEmitter::sharedBounds(Value mem, ValueRange origin, const BlockedLayout &l) {
  SmallVector<Value> shared(l.rank());
  for (int64_t d = 0; d < l.rank(); ++d)
    if (tileInOneStretch(mem, d, origin[d], l.shape[d]))
      // A whole tile is inside when its origin is: provably so for a tile
      // of a grid over this dimension (no check, no masked values).
      shared[d] = originInside(mem, d, origin[d])
                      ? Value(arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1))
                      : Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, origin[d], extentOf(mem, d)));
  return shared;
}

SmallVector<Value> ThreadEmitter::bounds(Value mem, ArrayRef<Value> coords, const BlockedLayout &l,
                                         const BlockedLayout::SlotPos &pos, ArrayRef<Value> inTileCoords,
                                         ArrayRef<Value> shared) {
  SmallVector<Value> conds;
  for (int64_t d = 0; d < l.rank(); ++d) {
    if (l.hasPadding(d)) // also keeps a padding slot's coordinate below the tile's size
      conds.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, inTileCoords[d],
                                            index(l.shape[d])));
    conds.push_back(!shared.empty() && shared[d]
                        ? shared[d]
                        : Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, coords[d], extentOf(mem, d))));
  }
  return conds;
}

int64_t ThreadEmitter::dimMultiple(Value mem, int64_t dim) const {
  auto it = dimMultiples.find(mem);
  return it == dimMultiples.end() || dim >= (int64_t)it->second.size() ? 1 : it->second[dim];
}

ThreadEmitter::AccessPlan ThreadEmitter::planAccess(Operation *op, Value mem, ValueRange origin,
                                                    const BlockedLayout &l, Type elt, bool quiet) {
  int64_t last = l.rank() - 1, vec = l.vec[last];
  int64_t eltBytes = elementBytes(elt);
  auto type = cast<MemRefType>(mem.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  std::string why;
  if (vec == 1)
    why = "the layout gives each thread 1 element per chunk";
  else if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    why = "the last dimension is not contiguous";
  else if (type.isDynamicDim(last) && dimMultiple(mem, last) % vec)
    why = "the last dimension is dynamic, so a chunk could straddle the tensor's edge (a size promised to be "
          "a multiple of the chunk, KernelBuilder::dynamic(name, multipleOf), lifts this)";
  else if (type.getDimSize(last) % vec)
    why = "the last dimension (" + std::to_string(type.getDimSize(last)) + ") is not a multiple of the " +
          std::to_string(vec) + "-element chunk";
  else if (!isMultipleOf(origin[last], vec))
    why = "the tile origin along the last dimension is not provably a multiple of " + std::to_string(vec);
  AccessPlan plan;
  plan.vectorized = why.empty();
  plan.chunk = plan.vectorized ? vec : 1;
  plan.alignment = accessAlignment(mem, plan.chunk * eltBytes);
  int64_t want = vec * eltBytes, got = plan.vectorized ? plan.alignment : eltBytes;
  if (why.empty() && plan.alignment < want) {
    auto it = alignment.find(mem);
    why = "the tensor promises only " + std::to_string(it == alignment.end() ? eltBytes : it->second) +
          "-byte alignment of its pointer and strides (tile.align)";
  }
  if (remarks && !quiet && got < want)
    op->emitRemark() << "access of " << type << " is " << got << " bytes wide per thread instead of " << want
                     << ": " << why;
  return plan;
}

/// The data-dependent row of tile.gather_rows / tile.scatter_rows: slot `s` of `rows` as the
/// first coordinate, with the conditions that it names a row of `mem`.
static Value gatheredRow(OpBuilder &b, Location loc, Value mem, Value rows, int64_t s, SmallVectorImpl<Value> &conds) {
  Value row = vector::ExtractOp::create(b, loc, rows, ArrayRef<int64_t>{s});
  Value size = arith::IndexCastOp::create(b, loc, b.getI32Type(), memref::DimOp::create(b, loc, mem, 0));
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  conds.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row, zero));
  conds.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, size));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), row);
}

Value ThreadEmitter::load(Operation *op, Value source, ValueRange origin, const BlockedLayout &l, Type elt,
                          Value rows, bool skipOutside) {
  int64_t n = l.slotsPerThread();
  AccessPlan plan = planAccess(op, source, origin, l, elt);
  bool vectorized = plan.vectorized;
  int64_t chunk = plan.chunk;
  auto resultType = VectorType::get({n}, elt);
  auto chunkType = VectorType::get({chunk}, elt);
  Value zeroChunk = arith::ConstantOp::create(b, loc, chunkType, b.getZeroAttr(chunkType));
  (void)resultType;
  SmallVector<Value> chunks;
  int64_t align = plan.alignment;
  // A gathered row is data-dependent: checked per chunk, not from the origin.
  SmallVector<Value> shared = rows ? SmallVector<Value>() : sharedBounds(source, origin, l);
  // A masked chunk of a kernel's own shared buffer (tile.load of a tile.alloc) is skipped, not read at a clamped
  // address: the clamped read would race with a thread writing the buffer's first element (harmless to the
  // result, but a data race that racecheck reports, as it did for engram_gate_bwd's shared partials). The
  // lowering's internal buffers (relayouts, transposes) are written whole before a barrier and then only read:
  // their clamped reads stay branch-free (the branches cost grad_w_reduce's unaligned kernel 8 spilled bytes on
  // sm_80).
  const bool guardReads =
      skipOutside ||
      (isa<tile::LoadOp>(op) && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(cast<MemRefType>(source.getType())));
  auto read = [&](OpBuilder &ib, Location il, ValueRange at) -> Value {
    if (vectorized)
      return vector::LoadOp::create(ib, il, chunkType, source, at, false, llvm::MaybeAlign(align));
    Value scalar = memref::LoadOp::create(ib, il, source, at);
    return vector::BroadcastOp::create(ib, il, chunkType, scalar);
  };
  for (int64_t s = 0; s < n; s += chunk) {
    BlockedLayout::SlotPos pos = l.slotPos(s);
    SmallVector<Value> coords, inTile;
    chunkCoords(l, pos, origin, coords, inTile);
    SmallVector<Value> rowConds;
    if (rows) // the chunk's row comes from `rows`, checked against the tensor's rows
      coords[0] = gatheredRow(b, loc, source, rows, s, rowConds);
    SmallVector<Value> conds = bounds(source, coords, l, pos, inTile, shared);
    conds.append(rowConds.begin(), rowConds.end());
    Value value;
    if (conds.empty()) {
      value = read(b, loc, coords);
    } else if (guardReads) {
      auto guarded = scf::IfOp::create(
          b, loc, allTrue(conds),
          [&](OpBuilder &tb, Location tl) { scf::YieldOp::create(tb, tl, ValueRange{read(tb, tl, coords)}); },
          [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, ValueRange{zeroChunk}); });
      value = guarded.getResult(0);
    } else {
      // Branch-free: read at a clamped in-bounds address (the tensor's first
      // element; the launcher never runs a kernel on an empty tensor) and
      // select zero where the chunk is outside. All of a thread's loads then
      // issue back to back instead of one per branch.
      Value inside = allTrue(conds);
      SmallVector<Value> safe;
      for (Value c : coords)
        safe.push_back(arith::SelectOp::create(b, loc, inside, c, index(0)));
      value = arith::SelectOp::create(b, loc, inside, read(b, loc, safe), zeroChunk);
    }
    chunks.push_back(value);
  }
  return concat(chunks);
}

/// Slot `s` of an integer mask vector is nonzero.
static Value maskSet(OpBuilder &b, Location loc, Value mask, int64_t s) {
  Value m = vector::ExtractOp::create(b, loc, mask, ArrayRef<int64_t>{s});
  Value zero = arith::ConstantOp::create(b, loc, m.getType(), b.getZeroAttr(m.getType()));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, m, zero);
}

void ThreadEmitter::store(Operation *op, Value value, Value dest, ValueRange origin, const BlockedLayout &l, Value rows,
                          Value mask) {
  int64_t n = l.slotsPerThread();
  Type elt = cast<VectorType>(value.getType()).getElementType();
  // A masked store writes element by element (the mask is per element): no wider access to plan.
  AccessPlan plan = mask ? AccessPlan{false, 1, elementBytes(elt)} : planAccess(op, dest, origin, l, elt);
  bool vectorized = plan.vectorized;
  int64_t chunk = plan.chunk;
  int64_t align = plan.alignment;
  // A scattered row is data-dependent: checked per chunk, not from the origin.
  SmallVector<Value> shared = rows ? SmallVector<Value>() : sharedBounds(dest, origin, l);
  const bool wordChunks = vectorized && elt.isInteger(8) && chunk % 4 == 0 && n % 4 == 0 && align >= 4;
  Value words = wordChunks ? vector::BitCastOp::create(b, loc, VectorType::get({n / 4}, b.getI32Type()), value)
                           : Value();
  for (int64_t s = 0; s < n; s += chunk) {
    BlockedLayout::SlotPos pos = l.slotPos(s);
    SmallVector<Value> coords, inTile;
    chunkCoords(l, pos, origin, coords, inTile);
    SmallVector<Value> rowConds;
    if (rows) // the chunk's row comes from `rows`, checked against the tensor's rows
      coords[0] = gatheredRow(b, loc, dest, rows, s, rowConds);
    SmallVector<Value> conds = bounds(dest, coords, l, pos, inTile, shared);
    conds.append(rowConds.begin(), rowConds.end());
    if (mask)
      conds.push_back(maskSet(b, loc, mask, s));
    auto write = [&](OpBuilder &wb, Location wl) {
      if (wordChunks) {
        // Bytes taken as whole 32-bit words: a chunk sliced byte by byte out
        // of words (packed codes) made the backend rebuild each stored word
        // from its bytes (350 byte permutes in the e5m6 cast); sliced
        // as words and cast back, the store is of the words themselves.
        SmallVector<int64_t> lanes;
        for (int64_t i = 0; i < chunk / 4; ++i)
          lanes.push_back(s / 4 + i);
        Value part = vector::ShuffleOp::create(wb, wl, words, words, lanes);
        part = vector::BitCastOp::create(wb, wl, VectorType::get({chunk}, elt), part);
        vector::StoreOp::create(wb, wl, part, dest, coords, false, llvm::MaybeAlign(align));
      } else if (vectorized) {
        SmallVector<int64_t> lanes;
        for (int64_t i = 0; i < chunk; ++i)
          lanes.push_back(s + i);
        Value part = vector::ShuffleOp::create(wb, wl, value, value, lanes);
        vector::StoreOp::create(wb, wl, part, dest, coords, false, llvm::MaybeAlign(align));
      } else {
        Value scalar = vector::ExtractOp::create(wb, wl, value, ArrayRef<int64_t>{s});
        memref::StoreOp::create(wb, wl, scalar, dest, coords);
      }
    };
    whenAll(conds, write);
  }
}

Value ThreadEmitter::extentOf(Value mem, int64_t d) {
  auto type = cast<MemRefType>(mem.getType());
  return type.isDynamicDim(d) ? Value(memref::DimOp::create(b, loc, mem, d)) : index(type.getDimSize(d));
}

void ThreadEmitter::reducedSlotAccess(Value mem, ValueRange origin, const GroupedReduction &g, int64_t slot,
                                      SmallVectorImpl<Value> &coords, SmallVectorImpl<Value> &conds,
                                      const GroupedReduction *inner, SmallVectorImpl<Value> *innerFirst,
                                      int64_t splitLast, Value row, bool everyReplica) {
  const BlockedLayout &l = g.parent;
  BlockedLayout::SlotPos pos = l.slotPos(g.representativeSlot(slot));
  for (int64_t d = 0; d < l.rank(); ++d) {
    // A reduction over the whole of a padded dimension leaves its value on every thread position along it, the
    // padding ones too (LowerReduce.cpp), and ops on the result may take a slot from any of them
    // (SplitReplicatedWork.cpp): a load fills them all, not only those inside the parent tile.
    const bool wholePadded = everyReplica && (g.spansPaddedDim(d) || (inner && inner->spansPaddedDim(d)));
    Value t = wholePadded ? index(0) : tileCoord(l, pos, d, &conds);
    if (d == g.dim && !wholePadded)
      t = arith::DivUIOp::create(b, loc, t, index(g.group));
    if (inner && d == inner->dim && !wholePadded) {
      if (innerFirst)
        innerFirst->push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                                    arith::RemUIOp::create(b, loc, t, index(inner->group)),
                                                    index(0)));
      t = arith::DivUIOp::create(b, loc, t, index(inner->group));
    }
    // `row`: a data-dependent first coordinate (tile.gather_rows).
    const bool gathered = row && d == 0;
    Value c = gathered ? row : Value(arith::AddIOp::create(b, loc, origin[d], t));
    if (splitLast && d == l.rank() - 1) { // (..., c) -> (..., c / n, c % n)
      Value hi = arith::DivUIOp::create(b, loc, c, index(splitLast)),
            lo = arith::RemUIOp::create(b, loc, c, index(splitLast));
      conds.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, hi, extentOf(mem, d)));
      conds.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lo, extentOf(mem, d + 1)));
      coords.push_back(hi);
      coords.push_back(lo);
      continue;
    }
    // The reduced tile's size along d: its groups (and inner groups) there.
    int64_t size = l.shape[d];
    if (d == g.dim)
      size = llvm::divideCeil(size, g.group);
    if (inner && d == inner->dim)
      size = llvm::divideCeil(size, inner->group);
    const bool uniform = !gathered && tileInOneStretch(mem, d, origin[d], size);
    conds.push_back(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, uniform ? origin[d] : c, extentOf(mem, d)));
    coords.push_back(c);
  }
}

Value ThreadEmitter::groupLeader(const GroupedReduction &g) {
  if (g.kind == GroupedReduction::Kind::InThread)
    return Value();
  const BlockedLayout &l = g.parent;
  Value q = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, warpCoord(l, g.dim), index(l.lanes[g.dim])),
                                  laneCoord(l, g.dim));
  Value inGroup = arith::RemUIOp::create(b, loc, q, index(g.threadPositions));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, inGroup, index(0));
}

void ThreadEmitter::storeReduced(Value value, Value dest, ValueRange origin, const GroupedReduction &g,
                                 const GroupedReduction *inner, int64_t splitLast, bool atomicAdd, Value mask) {
  // One thread per group writes: the one whose in-group position is zero.
  Value leader = groupLeader(g);
  for (int64_t r = 0; r < g.reducedSlots(); ++r) {
    SmallVector<Value> conds, coords;
    if (leader)
      conds.push_back(leader);
    if (mask)
      conds.push_back(maskSet(b, loc, mask, r));
    reducedSlotAccess(dest, origin, g, r, coords, conds, inner, &conds, splitLast);
    whenAll(conds, [&](OpBuilder &wb, Location wl) {
      Value scalar = vector::ExtractOp::create(wb, wl, value, ArrayRef<int64_t>{r});
      if (atomicAdd)
        memref::AtomicRMWOp::create(wb, wl,
                                    isa<FloatType>(scalar.getType()) ? arith::AtomicRMWKind::addf
                                                                     : arith::AtomicRMWKind::addi,
                                    scalar, dest, coords);
      else
        memref::StoreOp::create(wb, wl, scalar, dest, coords);
    });
  }
}

Value ThreadEmitter::loadReduced(Value source, ValueRange origin, const GroupedReduction &g, Type elt,
                                 const GroupedReduction *inner, int64_t splitLast, Value rows) {
  Value zero = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
  SmallVector<Value> elements;
  for (int64_t r = 0; r < g.reducedSlots(); ++r) {
    SmallVector<Value> conds, coords;
    Value row = rows ? gatheredRow(b, loc, source, rows, r, conds) : Value();
    reducedSlotAccess(source, origin, g, r, coords, conds, inner, nullptr, splitLast, row, /*everyReplica=*/true);
    auto ifOp = scf::IfOp::create(
        b, loc, allTrue(conds),
        [&](OpBuilder &tb, Location tl) {
          scf::YieldOp::create(tb, tl, ValueRange{memref::LoadOp::create(tb, tl, source, coords)});
        },
        [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, ValueRange{zero}); });
    elements.push_back(ifOp.getResult(0));
  }
  return vector::FromElementsOp::create(b, loc, VectorType::get({g.reducedSlots()}, elt), elements);
}

} // namespace tk::compiler
