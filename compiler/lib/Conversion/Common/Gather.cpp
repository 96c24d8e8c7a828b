//===- Gather.cpp - tile.gather / tile.scatter: guarded scalar accesses at data-dependent positions
//
// Shared by the GPU lowering (per-thread vectors) and the CPU lowering
// (scalars): one scf.if per element, so a negative index (MoE padding) or one
// past the end never touches memory and reads as zero. A scatter may add
// (integer atomics: histograms) instead of storing.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Conversion/FloatEncoding.h"
#include "tk/compiler/Conversion/ScalarMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

static Value gatherOne(OpBuilder &b, Location loc, Value source, Value size, Value index, Type elt) {
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value inRange = arith::AndIOp::create(b, loc,
                                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero),
                                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, size));
  auto guarded = scf::IfOp::create(
      b, loc, inRange,
      [&](OpBuilder &tb, Location l) {
        Value pos = arith::IndexCastOp::create(tb, l, tb.getIndexType(), index);
        scf::YieldOp::create(tb, l, ValueRange{memref::LoadOp::create(tb, l, source, ValueRange{pos})});
      },
      [&](OpBuilder &eb, Location l) {
        scf::YieldOp::create(eb, l, ValueRange{arith::ConstantOp::create(eb, l, eb.getZeroAttr(elt))});
      });
  return guarded.getResult(0);
}

Value emitGather(OpBuilder &b, Location loc, Value source, Value index, Type elt) {
  Value dim = memref::DimOp::create(b, loc, source, 0);
  Value size = arith::IndexCastOp::create(b, loc, b.getI32Type(), dim);
  auto vec = dyn_cast<VectorType>(index.getType());
  if (!vec)
    return gatherOne(b, loc, source, size, index, elt);
  SmallVector<Value> values;
  for (int64_t i = 0; i < vec.getNumElements(); ++i)
    values.push_back(
        gatherOne(b, loc, source, size, vector::ExtractOp::create(b, loc, index, ArrayRef<int64_t>{i}), elt));
  return vector::FromElementsOp::create(b, loc, VectorType::get({vec.getNumElements()}, elt), values);
}

void emitScatter(OpBuilder &b, Location loc, Value dest, Value index, Value value, bool add) {
  Value size = arith::IndexCastOp::create(b, loc, b.getI32Type(), memref::DimOp::create(b, loc, dest, 0));
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value inRange = arith::AndIOp::create(b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero),
                                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, size));
  scf::IfOp::create(b, loc, inRange, [&](OpBuilder &tb, Location l) {
    Value at = arith::IndexCastOp::create(tb, l, tb.getIndexType(), index);
    if (add)
      memref::AtomicRMWOp::create(tb, l, arith::AtomicRMWKind::addi, value, dest, ValueRange{at});
    else
      memref::StoreOp::create(tb, l, value, dest, ValueRange{at});
    scf::YieldOp::create(tb, l);
  });
}

} // namespace tk::compiler
