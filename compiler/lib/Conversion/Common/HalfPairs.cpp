//===- HalfPairs.cpp - f32 pairs to 16-bit floats, one word per pair ------===//
//
// sm_80+ converts two f32 into one 32-bit word of fp16 or bf16 in one
// instruction (cvt.{rn,rz}.{f16x2,bf16x2}.f32). The E5M6 encode takes its
// fp16 bits rounded toward zero that way, and f32 -> bf16 rounds pairs so,
// where one conversion per element took one F2F each. (bf16 -> f32 as a shift
// and a mask per word was tried and dropped: LLVM folds an absolute
// value through its bitcast into an integer mask, one more instruction per
// element where the max instruction takes |x| for free.)
//===----------------------------------------------------------------------===//
#include "tk/compiler/Conversion/FloatEncoding.h"
#include "tk/compiler/Conversion/ScalarMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

template <typename ConvertOp>
static Value pairWord(OpBuilder &b, Location loc, Type pairType, Value hi, Value lo, NVVM::FPRoundingMode rounding) {
  MLIRContext *ctx = b.getContext();
  Value pair = ConvertOp::create(b, loc, pairType, hi, lo, /*random_bits=*/Value(),
                                 NVVM::FPRoundingModeAttr::get(ctx, rounding),
                                 NVVM::SaturationModeAttr::get(ctx, NVVM::SaturationMode::NONE), b.getBoolAttr(false));
  auto wordType = VectorType::get({1}, b.getI32Type());
  return vector::ExtractOp::create(b, loc, vector::BitCastOp::create(b, loc, wordType, pair), ArrayRef<int64_t>{0});
}

Value emitHalfPairWords(OpBuilder &b, Location loc, Value f32Vector, Type halfType, bool towardZero) {
  const int64_t n = cast<VectorType>(f32Vector.getType()).getNumElements();
  auto pairType = VectorType::get({2}, halfType);
  auto rounding = towardZero ? NVVM::FPRoundingMode::RZ : NVVM::FPRoundingMode::RN;
  SmallVector<Value> words;
  for (int64_t i = 0; i < n; i += 2) {
    // The instruction puts its first operand in the upper half.
    Value lo = vector::ExtractOp::create(b, loc, f32Vector, ArrayRef<int64_t>{i});
    Value hi = vector::ExtractOp::create(b, loc, f32Vector, ArrayRef<int64_t>{i + 1});
    words.push_back(halfType.isBF16()
                        ? pairWord<NVVM::ConvertF32x2ToBF16x2Op>(b, loc, pairType, hi, lo, rounding)
                        : pairWord<NVVM::ConvertF32x2ToF16x2Op>(b, loc, pairType, hi, lo, rounding));
  }
  return vector::FromElementsOp::create(b, loc, VectorType::get({n / 2}, b.getI32Type()), words);
}

Value emitF32PairsToBf16(OpBuilder &b, Location loc, Value f32Vector) {
  const int64_t n = cast<VectorType>(f32Vector.getType()).getNumElements();
  Value words = emitHalfPairWords(b, loc, f32Vector, b.getBF16Type(), /*towardZero=*/false);
  return vector::BitCastOp::create(b, loc, VectorType::get({n}, b.getBF16Type()), words);
}

} // namespace tk::compiler
