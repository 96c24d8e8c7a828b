//===- Bf16Pairs.cpp - bf16 <-> f32 on per-thread vectors, two per word ---===//
//
// Converted one element at a time, a bf16 pair held in one 32-bit register
// costs a byte permute and a shift for its upper element (ptxas's expansion of
// cvt.f32.bf16), and f32 -> bf16 one conversion per element. Per word instead:
// the lower element is the word shifted up 16 bits, the upper element the
// word with its low half cleared (bf16 -> f32 is exact: the bf16 bits are the
// f32's upper half), and cvt.rn.bf16x2.f32 (sm_80+) rounds two f32 into one
// word. Both are exact equivalents of the per-element forms.
//===----------------------------------------------------------------------===//
#include "Distribute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

Value emitBf16PairsToF32(OpBuilder &b, Location loc, Value bf16Vector) {
  const int64_t n = cast<VectorType>(bf16Vector.getType()).getNumElements(), m = n / 2;
  auto wordsType = VectorType::get({m}, b.getI32Type());
  Value words = vector::BitCastOp::create(b, loc, wordsType, bf16Vector);
  auto splat = [&](uint32_t v) {
    return arith::ConstantOp::create(b, loc, wordsType,
                                     DenseElementsAttr::get(wordsType, b.getI32IntegerAttr(static_cast<int32_t>(v))));
  };
  Value lower = arith::ShLIOp::create(b, loc, words, splat(16));
  Value upper = arith::AndIOp::create(b, loc, words, splat(0xFFFF0000u));
  SmallVector<int64_t> interleave;
  for (int64_t p = 0; p < m; ++p)
    interleave.push_back(p), interleave.push_back(m + p);
  Value bits = vector::ShuffleOp::create(b, loc, lower, upper, interleave);
  return vector::BitCastOp::create(b, loc, VectorType::get({n}, b.getF32Type()), bits);
}

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
