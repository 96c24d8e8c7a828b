//===- DistributedFragment.cpp - per-thread loads, stores, elementwise ----===//
#include "Distribute.h"

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

Type storageType(Type elementType) {
  if (isa<Float8E4M3FNType>(elementType))
    return IntegerType::get(elementType.getContext(), 8);
  return elementType;
}

Value ThreadEmitter::index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

Value ThreadEmitter::sharedBuffer(MemRefType type) {
  Value buf = func.addWorkgroupAttribution(type, loc);
  // The global it becomes is declared 16-byte aligned (by default it would
  // be aligned to its element only), so 16-byte vectors and cp.async fit.
  func.setWorkgroupAttributionAttr(func.getNumWorkgroupAttributions() - 1, "llvm.align", b.getI64IntegerAttr(16));
  alignment[buf] = 16;
  return buf;
}

ThreadEmitter::ThreadIndex ThreadEmitter::rereadThreadIndex() {
  ThreadIndex saved{lane, warp, std::move(threadCoordCache)};
  threadCoordCache.clear();
  // A volatile read of %tid.x: gpu.thread_id becomes a read that LLVM may
  // hoist, and every value computed from it with it.
  Value tid = LLVM::InlineAsmOp::create(b, loc, b.getI32Type(), ValueRange{}, b.getStringAttr("mov.u32 $0, %tid.x;"),
                                        b.getStringAttr("=r"), /*has_side_effects=*/b.getUnitAttr(),
                                        /*is_align_stack=*/UnitAttr(),
                                        LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
                                        LLVM::AsmDialectAttr(), ArrayAttr())
                  .getResult(0);
  setThreadIndex(arith::IndexCastUIOp::create(b, loc, b.getIndexType(), tid));
  return saved;
}

void ThreadEmitter::setThreadIndex(Value tid) {
  lane = arith::RemUIOp::create(b, loc, tid, index(32));
  warp = arith::DivUIOp::create(b, loc, tid, index(32));
}

void ThreadEmitter::restoreThreadIndex(ThreadIndex saved) {
  lane = saved.lane, warp = saved.warp, threadCoordCache = std::move(saved.coords);
}

Value ThreadEmitter::laneCoord(const BlockedLayout &l, int64_t d) {
  Value v = arith::DivUIOp::create(b, loc, lane, index(l.laneStride(d)));
  return arith::RemUIOp::create(b, loc, v, index(l.lanes[d]));
}

Value ThreadEmitter::warpCoord(const BlockedLayout &l, int64_t d) {
  Value v = arith::DivUIOp::create(b, loc, warp, index(l.warpStride(d)));
  return arith::RemUIOp::create(b, loc, v, index(l.warps[d]));
}

Value ThreadEmitter::threadCoord(const BlockedLayout &l, int64_t d) {
  auto key = std::make_pair(Attribute(b.getStringAttr(l.str())), d);
  auto it = threadCoordCache.find(key);
  if (it != threadCoordCache.end())
    return it->second;
  // Thread coordinates are computed once per layout, at the top of the kernel.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfterValue(warp);
  Value w = arith::MulIOp::create(b, loc, warpCoord(l, d), index(l.vec[d] * l.lanes[d]));
  Value ln = arith::MulIOp::create(b, loc, laneCoord(l, d), index(l.vec[d]));
  Value c = arith::AddIOp::create(b, loc, w, ln);
  threadCoordCache[key] = c;
  return c;
}

void ThreadEmitter::whenAll(ArrayRef<Value> conds, function_ref<void(OpBuilder &, Location)> body) {
  if (conds.empty()) {
    body(b, loc);
    return;
  }
  scf::IfOp::create(b, loc, allTrue(conds), [&](OpBuilder &ib, Location il) {
    body(ib, il);
    scf::YieldOp::create(ib, il);
  });
}

void ThreadEmitter::when(ArrayRef<Value> conds, function_ref<void()> body) {
  whenAll(conds, [&](OpBuilder &ib, Location) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ib.getInsertionBlock(), ib.getInsertionPoint());
    body();
  });
}

Value ThreadEmitter::allTrue(ArrayRef<Value> conds) {
  Value acc = conds.front();
  for (Value c : conds.drop_front())
    acc = arith::AndIOp::create(b, loc, acc, c);
  return acc;
}

Value ThreadEmitter::concat(ArrayRef<Value> parts) {
  // vector.shuffle lowers straight to LLVM (strided-slice ops would need extra patterns).
  Value acc = parts.front();
  for (Value part : parts.drop_front()) {
    int64_t n = cast<VectorType>(acc.getType()).getNumElements() + cast<VectorType>(part.getType()).getNumElements();
    SmallVector<int64_t> mask;
    for (int64_t i = 0; i < n; ++i)
      mask.push_back(i);
    acc = vector::ShuffleOp::create(b, loc, acc, part, mask);
  }
  return acc;
}

Value ThreadEmitter::tileCoord(const BlockedLayout &l, const BlockedLayout::SlotPos &pos, int64_t d,
                               SmallVectorImpl<Value> *conds) {
  Value t = arith::AddIOp::create(b, loc, index(l.staticCoord(pos, d)), threadCoord(l, d));
  if (conds && l.hasPadding(d))
    conds->push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, t, index(l.shape[d])));
  return t;
}

Value ThreadEmitter::isFirstThread() {
  return arith::AndIOp::create(b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0)),
                               arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp, index(0)));
}

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
  int64_t eltBytes = std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
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

/// The data-dependent row of tile.gather_rows: slot `s` of `rows` as the
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
                          Value rows) {
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

void ThreadEmitter::store(Operation *op, Value value, Value dest, ValueRange origin, const BlockedLayout &l) {
  int64_t n = l.slotsPerThread();
  Type elt = cast<VectorType>(value.getType()).getElementType();
  AccessPlan plan = planAccess(op, dest, origin, l, elt);
  bool vectorized = plan.vectorized;
  int64_t chunk = plan.chunk;
  int64_t align = plan.alignment;
  SmallVector<Value> shared = sharedBounds(dest, origin, l);
  const bool wordChunks = vectorized && elt.isInteger(8) && chunk % 4 == 0 && n % 4 == 0 && align >= 4;
  Value words = wordChunks ? vector::BitCastOp::create(b, loc, VectorType::get({n / 4}, b.getI32Type()), value)
                           : Value();
  for (int64_t s = 0; s < n; s += chunk) {
    BlockedLayout::SlotPos pos = l.slotPos(s);
    SmallVector<Value> coords, inTile;
    chunkCoords(l, pos, origin, coords, inTile);
    SmallVector<Value> conds = bounds(dest, coords, l, pos, inTile, shared);
    auto write = [&](OpBuilder &wb, Location wl) {
      if (wordChunks) {
        // Bytes taken as whole 32-bit words: a chunk sliced byte by byte out
        // of words (packed codes) made the backend rebuild each stored word
        // from its bytes (S14: 350 byte permutes in the e5m6 cast); sliced
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
                                      int64_t splitLast, Value row) {
  const BlockedLayout &l = g.parent;
  BlockedLayout::SlotPos pos = l.slotPos(g.representativeSlot(slot));
  for (int64_t d = 0; d < l.rank(); ++d) {
    Value t = tileCoord(l, pos, d, &conds);
    if (d == g.dim)
      t = arith::DivUIOp::create(b, loc, t, index(g.group));
    if (inner && d == inner->dim) {
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

void ThreadEmitter::storeReduced(Value value, Value dest, ValueRange origin, const GroupedReduction &g,
                                 const GroupedReduction *inner, int64_t splitLast, bool atomicAdd) {
  const BlockedLayout &l = g.parent;
  int64_t dim = g.dim;
  // One thread per group writes: the one whose in-group position is zero.
  Value leader;
  if (g.kind != GroupedReduction::Kind::InThread) {
    Value q = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, warpCoord(l, dim), index(l.lanes[dim])), laneCoord(l, dim));
    Value inGroup = arith::RemUIOp::create(b, loc, q, index(g.threadPositions));
    leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, inGroup, index(0));
  }
  for (int64_t r = 0; r < g.reducedSlots(); ++r) {
    SmallVector<Value> conds, coords;
    if (leader)
      conds.push_back(leader);
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
    reducedSlotAccess(source, origin, g, r, coords, conds, inner, nullptr, splitLast, row);
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

Value ThreadEmitter::regroup(Value nested, const GroupedReduction &outer, const GroupedReduction &inner) {
  SmallVector<int64_t> mask;
  for (int64_t r = 0; r < inner.reducedSlots(); ++r)
    mask.push_back(outer.reducedSlotOf(inner.representativeSlot(r)));
  return vector::ShuffleOp::create(b, loc, nested, nested, mask);
}

Value ThreadEmitter::expand(Value reduced, const GroupedReduction &g) {
  SmallVector<int64_t> mask;
  for (int64_t s = 0; s < g.parent.slotsPerThread(); ++s)
    mask.push_back(g.reducedSlotOf(s));
  return vector::ShuffleOp::create(b, loc, reduced, reduced, mask);
}

/// An op that can run on whole per-thread vectors as it runs on scalars.
static bool isVectorizable(Operation &op) {
  if (isa<arith::ConstantOp>(op))
    return true;
  if (op.getNumRegions() != 0 || !op.hasTrait<OpTrait::Elementwise>())
    return false;
  // tile's scalar math (tile.silu, tile.sigmoid) is elementwise on vectors too.
  return isa<arith::ArithDialect, math::MathDialect, tile::TileDialect>(op.getDialect());
}

/// Where slot `slot` of per-thread vector `v` comes from: through the
/// shuffles of expansions (both operands the same vector) and broadcasts of
/// a scalar, the vector (or scalar) first holding it and its index there.
std::pair<Value, int64_t> slotSource(Value v, int64_t slot) {
  while (true) {
    if (auto shuffle = v.getDefiningOp<vector::ShuffleOp>()) {
      if (shuffle.getV1() != shuffle.getV2())
        break;
      int64_t m = shuffle.getMask()[slot], n = cast<VectorType>(shuffle.getV1().getType()).getNumElements();
      v = shuffle.getV1(), slot = m % n;
      continue;
    }
    if (auto broadcast = v.getDefiningOp<vector::BroadcastOp>())
      if (!isa<VectorType>(broadcast.getSource().getType()))
        return {broadcast.getSource(), 0};
    break;
  }
  return {v, slot};
}

FailureOr<Value> ThreadEmitter::parallel(tile::ParallelOp op, ArrayRef<Value> inputs, int64_t slots) {
  // Slots whose inputs all come from the same elements (the inputs are
  // expansions: a scale per block, an exponent per output block) compute the
  // same value: run the body once per distinct combination, then expand the
  // result back to the slots.
  SmallVector<std::pair<Value, SmallVector<int64_t>>> sources; // per input: its source and each slot's index there
  for (Value in : inputs) {
    auto &[source, index] = sources.emplace_back();
    for (int64_t s = 0; s < slots; ++s) {
      auto [from, at] = slotSource(in, s);
      source = from, index.push_back(at);
    }
  }
  std::map<SmallVector<int64_t>, int64_t> classOfKey;
  SmallVector<int64_t> classOf, representatives;
  for (int64_t s = 0; s < slots; ++s) {
    SmallVector<int64_t> key;
    for (auto &source : sources)
      key.push_back(source.second[s]);
    auto [it, added] = classOfKey.try_emplace(key, (int64_t)representatives.size());
    if (added)
      representatives.push_back(s);
    classOf.push_back(it->second);
  }
  if (!inputs.empty() && (int64_t)representatives.size() < slots) {
    int64_t n = representatives.size();
    SmallVector<Value> compact;
    for (auto &[source, index] : sources) {
      if (!isa<VectorType>(source.getType())) {
        compact.push_back(vector::BroadcastOp::create(b, loc, VectorType::get({n}, source.getType()), source));
        continue;
      }
      SmallVector<int64_t> mask;
      for (int64_t r : representatives)
        mask.push_back(index[r]);
      compact.push_back(vector::ShuffleOp::create(b, loc, source, source, mask));
    }
    FailureOr<Value> distinct = parallelSlots(op, compact, n);
    if (failed(distinct))
      return failure();
    return Value(vector::ShuffleOp::create(b, loc, *distinct, *distinct, classOf));
  }
  return parallelSlots(op, inputs, slots);
}

FailureOr<Value> ThreadEmitter::parallelSlots(tile::ParallelOp op, ArrayRef<Value> inputs, int64_t slots) {
  Block &body = op.getBody().front();
  auto yield = cast<tile::YieldOp>(body.getTerminator());
  for (BlockArgument arg : body.getArguments())
    if (isa<Float8E4M3FNType>(arg.getType()))
      return op.emitOpError() << "elementwise math on f8E4M3FN elements: convert the fragment to f32 first";
  bool vectorizable = llvm::all_of(body.without_terminator(), isVectorizable);
  if (vectorizable) {
    IRMapping map;
    for (auto [arg, in] : llvm::zip(body.getArguments(), inputs))
      map.map(arg, in);
    for (Operation &inner : body.without_terminator()) {
      if (auto cst = dyn_cast<arith::ConstantOp>(inner)) {
        auto type = VectorType::get({slots}, cst.getType());
        auto value = DenseElementsAttr::get(type, cast<TypedAttr>(cst.getValue()));
        map.map(cst.getResult(), arith::ConstantOp::create(b, loc, type, value));
        continue;
      }
      for (Value operand : inner.getOperands())
        if (!map.contains(operand)) // a scalar from outside the region: broadcast it
          map.map(operand, vector::BroadcastOp::create(b, loc, VectorType::get({slots}, operand.getType()),
                                                       operand));
      Operation *clone = b.clone(inner, map);
      for (Value res : clone->getResults())
        res.setType(VectorType::get({slots}, res.getType()));
    }
    return map.lookup(yield.getValues()[0]);
  }
  // General case: run the body once per slot.
  SmallVector<Value> elements;
  for (int64_t s = 0; s < slots; ++s) {
    IRMapping map;
    for (auto [arg, in] : llvm::zip(body.getArguments(), inputs))
      map.map(arg, vector::ExtractOp::create(b, loc, in, ArrayRef<int64_t>{s}));
    for (Operation &inner : body.without_terminator())
      b.clone(inner, map);
    elements.push_back(map.lookup(yield.getValues()[0]));
  }
  auto type = VectorType::get({slots}, op.getResult().getType().getElementType());
  return Value(vector::FromElementsOp::create(b, loc, type, elements));
}

FailureOr<Value> ThreadEmitter::convert(tile::ConvertOp op, Value input) {
  Type from = op.getInput().getType().getElementType(), to = op.getResult().getType().getElementType();
  int64_t slots = cast<VectorType>(input.getType()).getNumElements();
  if (from == to)
    return input;
  if (isa<Float8E4M3FNType>(to))
    return emitF32ToE4M3(b, loc, input, fp8Hardware);
  if (isa<Float8E4M3FNType>(from)) // to f32 (the verifier's rule)
    return emitE4M3ToF32(b, loc, input, fp8Hardware);
  if (slots % 2 == 0 && from.isF32() && to.isBF16())
    return emitF32PairsToBf16(b, loc, input);
  auto type = VectorType::get({slots}, to);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return Value(arith::ExtFOp::create(b, loc, type, input));
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return Value(arith::TruncFOp::create(b, loc, type, input));
  return op.emitOpError() << "no lowering for conversion from " << from << " to " << to;
}

} // namespace tk::compiler
