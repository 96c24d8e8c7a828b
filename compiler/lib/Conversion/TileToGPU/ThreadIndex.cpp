//===- ThreadIndex.cpp - thread coordinates, shared buffers, guarded code ===//
#include "ThreadEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace tk;

namespace tk::compiler {

Value ThreadEmitter::index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

Value ThreadEmitter::sharedBuffer(MemRefType type, std::optional<Location> where) {
  Value buf = func.addWorkgroupAttribution(type, where.value_or(loc));
  // The global it becomes is declared 16-byte aligned (by default it would
  // be aligned to its element only), so 16-byte vectors and cp.async fit.
  func.setWorkgroupAttributionAttr(func.getNumWorkgroupAttributions() - 1, "llvm.align", b.getI64IntegerAttr(16));
  alignment[buf] = 16;
  return buf;
}

ThreadIndexScope ThreadEmitter::threadIndexScope(OpBuilder &b, Location loc, Value tid) {
  auto c32 = [&] { return arith::ConstantIndexOp::create(b, loc, 32); };
  ThreadIndexScope scope;
  scope.lane = arith::RemUIOp::create(b, loc, tid, c32());
  scope.warp = arith::DivUIOp::create(b, loc, tid, c32());
  return scope;
}

ThreadIndexScope ThreadEmitter::rereadThreadIndex(OpBuilder &b, Location loc) {
  // A volatile read of %tid.x: gpu.thread_id becomes a read that LLVM may
  // hoist, and every value computed from it with it.
  Value tid = LLVM::InlineAsmOp::create(b, loc, b.getI32Type(), ValueRange{}, b.getStringAttr("mov.u32 $0, %tid.x;"),
                                        b.getStringAttr("=r"), /*has_side_effects=*/b.getUnitAttr(),
                                        /*is_align_stack=*/UnitAttr(),
                                        LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
                                        LLVM::AsmDialectAttr(), ArrayAttr())
                  .getResult(0);
  return threadIndexScope(b, loc, arith::IndexCastUIOp::create(b, loc, b.getIndexType(), tid));
}

ThreadIndexScope &KernelState::scopeAt(Block *block) {
  for (Block *b = block; b; b = b->getParentOp() ? b->getParentOp()->getBlock() : nullptr) {
    if (auto it = loopScopes.find(b); it != loopScopes.end())
      return it->second;
    if (b->getParentOp() == func)
      break;
  }
  return entry;
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

/// `v`'s elements, then poison up to `width` elements.
static Value widenTo(OpBuilder &b, Location loc, Value v, int64_t width) {
  int64_t n = cast<VectorType>(v.getType()).getNumElements();
  if (n == width)
    return v;
  SmallVector<int64_t> mask(width, vector::ShuffleOp::kPoisonIndex);
  for (int64_t i = 0; i < n; ++i)
    mask[i] = i;
  return vector::ShuffleOp::create(b, loc, v, v, mask);
}

Value ThreadEmitter::concat(ArrayRef<Value> parts) {
  // vector.shuffle lowers straight to LLVM (strided-slice ops would need extra patterns), but to one shufflevector
  // only when its operands have one type: otherwise it moves each element apart. So join pairs of equal width,
  // widening the shorter first: a chain of growing shuffles made LLVM fold thousands of element moves (most of a
  // kernel's codegen time).
  SmallVector<Value> level(parts.begin(), parts.end());
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      int64_t n = cast<VectorType>(level[i].getType()).getNumElements();
      int64_t m = cast<VectorType>(level[i + 1].getType()).getNumElements();
      int64_t width = std::max(n, m);
      SmallVector<int64_t> mask;
      for (int64_t k = 0; k < n; ++k)
        mask.push_back(k);
      for (int64_t k = 0; k < m; ++k)
        mask.push_back(width + k);
      next.push_back(vector::ShuffleOp::create(b, loc, widenTo(b, loc, level[i], width),
                                               widenTo(b, loc, level[i + 1], width), mask));
    }
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
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

} // namespace tk::compiler
