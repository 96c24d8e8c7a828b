//===- Bf16Pairs.cpp - f32 -> bf16 on per-thread vectors, two per word ----===//
//
// Converted one element at a time, f32 -> bf16 is one F2F instruction per
// element; cvt.rn.bf16x2.f32 (sm_80+) rounds two f32 into one 32-bit word,
// the same bits. (The reverse as a shift and a mask per word was tried in
// S14 and dropped: LLVM folds an absolute value through its bitcast into an
// integer mask, one more instruction per element where the max instruction
// takes |x| for free.)
//===----------------------------------------------------------------------===//
#include "Distribute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

Value emitF32PairsToBf16(OpBuilder &b, Location loc, Value f32Vector) {
  const int64_t n = cast<VectorType>(f32Vector.getType()).getNumElements();
  MLIRContext *ctx = b.getContext();
  auto pairType = VectorType::get({2}, b.getBF16Type()), wordType = VectorType::get({1}, b.getI32Type());
  SmallVector<Value> words;
  for (int64_t i = 0; i < n; i += 2) {
    // The instruction puts its first operand in the upper half.
    Value lo = vector::ExtractOp::create(b, loc, f32Vector, ArrayRef<int64_t>{i});
    Value hi = vector::ExtractOp::create(b, loc, f32Vector, ArrayRef<int64_t>{i + 1});
    Value pair = NVVM::ConvertF32x2ToBF16x2Op::create(b, loc, pairType, hi, lo, /*random_bits=*/Value(),
                                                      NVVM::FPRoundingModeAttr::get(ctx, NVVM::FPRoundingMode::RN),
                                                      NVVM::SaturationModeAttr::get(ctx, NVVM::SaturationMode::NONE),
                                                      b.getBoolAttr(false));
    words.push_back(
        vector::ExtractOp::create(b, loc, vector::BitCastOp::create(b, loc, wordType, pair), ArrayRef<int64_t>{0}));
  }
  Value packed = vector::FromElementsOp::create(b, loc, VectorType::get({n / 2}, b.getI32Type()), words);
  return vector::BitCastOp::create(b, loc, VectorType::get({n}, b.getBF16Type()), packed);
}

} // namespace tk::compiler
