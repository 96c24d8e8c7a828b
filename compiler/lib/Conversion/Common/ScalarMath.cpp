//===- ScalarMath.cpp - helpers both lowerings share ----------------------===//
#include "tk/compiler/Conversion/ScalarMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

Type storageType(Type elementType) {
  if (isa<Float8E4M3FNType>(elementType))
    return IntegerType::get(elementType.getContext(), 8);
  return elementType;
}

Value reduceIdentity(OpBuilder &b, Location loc, tile::ReduceKind kind, Type t) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case tile::ReduceKind::sum:
    case tile::ReduceKind::absmax:
      return arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, 0.0));
    case tile::ReduceKind::max:
      return arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, llvm::APFloat::getInf(sem, true)));
    case tile::ReduceKind::min:
      return arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, llvm::APFloat::getInf(sem, false)));
    }
  }
  auto it = cast<IntegerType>(t);
  unsigned w = it.getWidth();
  switch (kind) {
  case tile::ReduceKind::max:
    return arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, llvm::APInt::getSignedMinValue(w)));
  case tile::ReduceKind::min:
    return arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, llvm::APInt::getSignedMaxValue(w)));
  default:
    return arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, 0));
  }
}

Value reduceCombine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value a, Value c) {
  bool isFloat = isa<FloatType>(a.getType());
  switch (kind) {
  case tile::ReduceKind::sum:
    return isFloat ? Value(arith::AddFOp::create(b, loc, a, c)) : Value(arith::AddIOp::create(b, loc, a, c));
  case tile::ReduceKind::max:
  case tile::ReduceKind::absmax:
    return isFloat ? Value(arith::MaxNumFOp::create(b, loc, a, c)) : Value(arith::MaxSIOp::create(b, loc, a, c));
  case tile::ReduceKind::min:
    return isFloat ? Value(arith::MinNumFOp::create(b, loc, a, c)) : Value(arith::MinSIOp::create(b, loc, a, c));
  }
  llvm_unreachable("reduce kind");
}

Value absoluteValue(OpBuilder &b, Location loc, Value v) {
  auto ft = cast<FloatType>(v.getType());
  auto it = b.getIntegerType(ft.getWidth());
  Value bits = arith::BitcastOp::create(b, loc, it, v);
  Value mask = arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, llvm::APInt::getSignedMaxValue(ft.getWidth())));
  return arith::BitcastOp::create(b, loc, ft, arith::AndIOp::create(b, loc, bits, mask));
}

Value Shaped::splat(TypedAttr scalar) const {
  if (vt) {
    auto t = VectorType::get(vt.getShape(), scalar.getType());
    return arith::ConstantOp::create(b, loc, t, DenseElementsAttr::get(t, scalar));
  }
  return arith::ConstantOp::create(b, loc, scalar);
}

Value perLane(OpBuilder &b, Location loc, ValueRange operands,
              function_ref<Value(OpBuilder &, Location, ValueRange)> scalar) {
  auto vec = dyn_cast<VectorType>(operands.front().getType());
  if (!vec)
    return scalar(b, loc, operands);
  SmallVector<Value> lanes;
  for (int64_t i = 0; i < vec.getNumElements(); ++i) {
    SmallVector<Value> args;
    for (Value v : operands)
      args.push_back(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i}));
    lanes.push_back(scalar(b, loc, args));
  }
  return vector::FromElementsOp::create(b, loc, vec, lanes);
}

Value tf32Bits(OpBuilder &b, Location loc, Value f32) {
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), f32);
  Value half = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0x1000));
  Value mask = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(~0x1FFF));
  return arith::AndIOp::create(b, loc, arith::AddIOp::create(b, loc, bits, half), mask);
}

} // namespace tk::compiler
