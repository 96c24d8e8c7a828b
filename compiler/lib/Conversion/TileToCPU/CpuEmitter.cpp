//===- CpuEmitter.cpp - loops and guarded accesses over fragment buffers --===//
#include "CpuPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::compiler {

Value CpuEmitter::index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

Value CpuEmitter::buffer(MemRefType type) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&state.func.getBody().front());
  Value buf = memref::AllocOp::create(b, loc, type);
  state.buffers.push_back(buf);
  return buf;
}

Value CpuEmitter::fragmentBuffer(tile::FragmentType type) {
  return buffer(MemRefType::get(type.getShape(), storageType(type.getElementType())));
}

void CpuEmitter::loopNest(ArrayRef<int64_t> shape, function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d : shape) {
    lbs.push_back(index(0));
    ubs.push_back(index(d));
    steps.push_back(index(1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

Value CpuEmitter::inBounds(OpBuilder &ib, Value mem, ArrayRef<Value> coords) {
  auto type = cast<MemRefType>(mem.getType());
  Value ok;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value extent = type.isDynamicDim(d) ? Value(memref::DimOp::create(ib, loc, mem, d))
                                        : Value(arith::ConstantIndexOp::create(ib, loc, type.getDimSize(d)));
    Value c = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::ult, coords[d], extent);
    ok = ok ? Value(arith::AndIOp::create(ib, loc, ok, c)) : c;
  }
  return ok;
}

SmallVector<Value> CpuEmitter::offset(OpBuilder &ib, ValueRange origin, ValueRange ivs, std::optional<int64_t> split) {
  SmallVector<Value> out;
  for (auto [o, i] : llvm::zip(origin, ivs))
    out.push_back(arith::AddIOp::create(ib, loc, o, i));
  if (split) {
    Value c = out.back(), n = arith::ConstantIndexOp::create(ib, loc, *split);
    out.back() = arith::DivUIOp::create(ib, loc, c, n);
    out.push_back(arith::RemUIOp::create(ib, loc, c, n));
  }
  return out;
}

Value CpuEmitter::maskedRead(OpBuilder &ib, Value src, ArrayRef<Value> coords) {
  Type elt = cast<MemRefType>(src.getType()).getElementType();
  auto ifOp = scf::IfOp::create(
      ib, loc, inBounds(ib, src, coords),
      [&](OpBuilder &tb, Location l) {
        scf::YieldOp::create(tb, l, ValueRange{memref::LoadOp::create(tb, l, src, coords)});
      },
      [&](OpBuilder &eb, Location l) {
        scf::YieldOp::create(eb, l, ValueRange{arith::ConstantOp::create(eb, l, eb.getZeroAttr(elt))});
      });
  return ifOp.getResult(0);
}

void CpuEmitter::maskedWrite(OpBuilder &ib, Value value, Value dst, ArrayRef<Value> coords, bool atomicAdd) {
  scf::IfOp::create(ib, loc, inBounds(ib, dst, coords), [&](OpBuilder &tb, Location l) {
    if (atomicAdd)
      memref::AtomicRMWOp::create(
          tb, l, isa<FloatType>(value.getType()) ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi, value, dst,
          coords);
    else
      memref::StoreOp::create(tb, l, value, dst, coords);
    scf::YieldOp::create(tb, l);
  });
}

} // namespace tk::compiler
