//===- FloatEncoding.cpp - f32 <-> e4m3 conversions on per-thread values --===//
#include "tk/compiler/Conversion/FloatEncoding.h"
#include "tk/compiler/Conversion/ScalarMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

/// sm_89+: cvt.rn.satfinite.e4m3x2.f32 on pairs. The instruction puts its
/// first operand in the high byte, so the pair is passed high element first.
static Value hardwareE4M3(OpBuilder &b, Location loc, Value input) {
  int64_t n = cast<VectorType>(input.getType()).getNumElements();
  MLIRContext *ctx = b.getContext();
  Type i8 = b.getI8Type();
  auto pairType = VectorType::get({2}, i8);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> pairs;
  for (int64_t i = 0; i < n; i += 2) {
    Value lo = vector::ExtractOp::create(b, loc, input, ArrayRef<int64_t>{i});
    Value hi = i + 1 < n ? Value(vector::ExtractOp::create(b, loc, input, ArrayRef<int64_t>{i + 1})) : zero;
    Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, pairType, hi, lo, NVVM::FPRoundingModeAttr::get(ctx, NVVM::FPRoundingMode::RN),
        NVVM::SaturationModeAttr::get(ctx, NVVM::SaturationMode::SATFINITE), b.getBoolAttr(false),
        TypeAttr::get(Float8E4M3FNType::get(ctx)));
    pairs.push_back(pair);
  }
  // Whole pairs travel as 16-bit words: concatenating bytes made LLVM pack
  // them with a byte permute each (about ten instructions per 8 bytes).
  if (n % 2 == 0) {
    Type i16 = b.getI16Type();
    SmallVector<Value> words;
    for (Value pair : pairs)
      words.push_back(vector::ExtractOp::create(
          b, loc, vector::BitCastOp::create(b, loc, VectorType::get({1}, i16), pair), ArrayRef<int64_t>{0}));
    Value packed = vector::FromElementsOp::create(b, loc, VectorType::get({n / 2}, i16), words);
    return vector::BitCastOp::create(b, loc, VectorType::get({n}, i8), packed);
  }
  SmallVector<Value> bytes;
  for (auto [k, pair] : llvm::enumerate(pairs)) {
    bytes.push_back(vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{0}));
    if (2 * (int64_t)k + 1 < n)
      bytes.push_back(vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{1}));
  }
  return vector::FromElementsOp::create(b, loc, VectorType::get({n}, i8), bytes);
}

/// Integer arithmetic, bit-identical to the hardware conversion (NaN -> 0x7F):
/// normal results round the mantissa to 3 bits to nearest even; subnormal
/// results (|x| < 2^-6) are rounded by one float addition of 2^14, whose ulp
/// is the e4m3 subnormal step 2^-9.
static Value softwareE4M3(OpBuilder &b, Location loc, Value input) {
  Shaped sh(b, loc, input);
  Type i32v = sh.of(b.getI32Type()), f32v = sh.of(b.getF32Type());
  auto ci = [&](int64_t v) { return sh.i32(v); };
  Value u = arith::BitcastOp::create(b, loc, i32v, input);
  Value sign = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, u, ci(24)), ci(0x80));
  Value a = arith::AndIOp::create(b, loc, u, ci(0x7FFFFFFF));
  // Normal range: round to nearest even at bit 20, then rebias the exponent (127 -> 7).
  Value odd = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, a, ci(20)), ci(1));
  Value rounded = arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, a, ci(0x7FFFF)), odd);
  Value normal = arith::SubIOp::create(b, loc, arith::ShRUIOp::create(b, loc, rounded, ci(20)), ci(0x3C0));
  // Subnormal range: the float sum |x| + 2^14 holds round(|x| * 2^9) in its low bits.
  Value af = arith::BitcastOp::create(b, loc, f32v, a);
  Value bias = sh.f32(16384.0f);
  Value shifted = arith::BitcastOp::create(b, loc, i32v, arith::AddFOp::create(b, loc, af, bias));
  Value subnormal = arith::SubIOp::create(b, loc, shifted, ci(0x46800000));
  Value isNormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, a, ci(0x3C800000));
  Value mag = arith::SelectOp::create(b, loc, isNormal, normal, subnormal);
  Value over = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, a, ci(0x43E00000));
  mag = arith::SelectOp::create(b, loc, over, ci(0x7E), mag);
  Value code = arith::OrIOp::create(b, loc, mag, sign);
  Value isNan = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, a, ci(0x7F800000));
  code = arith::SelectOp::create(b, loc, isNan, ci(0x7F), code);
  return arith::TruncIOp::create(b, loc, sh.of(b.getI8Type()), code);
}

Value emitF32ToE4M3(OpBuilder &b, Location loc, Value f32Vector, bool hardware) {
  return hardware ? hardwareE4M3(b, loc, f32Vector) : softwareE4M3(b, loc, f32Vector);
}

/// E2M1 code (0..15, in i32) of f32 values (scalar or vector), rounding
/// |x| to nearest even onto {0, 0.5, 1, 1.5, 2, 3, 4, 6} and saturating at 6;
/// bit 3 is the sign bit (also for zeros), NaN gives a signed zero. In the
/// normal range (|x| >= 1) the f32 bits are rounded to one mantissa bit and
/// rebiased (exponent 127 -> 1); below it the float sum |x| + 2^22, whose ulp
/// is the E2M1 subnormal step 0.5, holds round(2|x|) in its low bits. About
/// half the instructions of counting the seven rounding boundaries.
Value emitE2M1Code(OpBuilder &b, Location loc, Value input) {
  Shaped sh(b, loc, input);
  Type i32v = sh.of(b.getI32Type()), f32v = sh.of(b.getF32Type());
  auto ci = [&](int64_t v) { return sh.i32(v); };
  Value u = arith::BitcastOp::create(b, loc, i32v, input);
  Value a = arith::AndIOp::create(b, loc, u, ci(0x7FFFFFFF));
  Value af = arith::BitcastOp::create(b, loc, f32v, a);
  // Normal: clamp to 6.0, round at bit 22 to nearest even, (bits >> 22) - (126 << 1).
  Value c6 = arith::MinUIOp::create(b, loc, a, ci(0x40C00000));
  Value odd = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, c6, ci(22)), ci(1));
  Value rounded = arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, c6, ci(0x1FFFFF - 0x3F000000)), odd);
  Value normal = arith::ShRUIOp::create(b, loc, rounded, ci(22));
  // Subnormal: round(2|x|) from the low bits of |x| + 2^22.
  Value shifted = arith::BitcastOp::create(b, loc, i32v, arith::AddFOp::create(b, loc, af, sh.f32(4194304.0f)));
  Value subnormal = arith::SubIOp::create(b, loc, shifted, ci(0x4A800000));
  Value isNormal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, af, sh.f32(1.0f));
  Value isSubnormal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, af, sh.f32(1.0f)); // not NaN
  Value code = arith::SelectOp::create(b, loc, isNormal, normal,
                                       arith::SelectOp::create(b, loc, isSubnormal, subnormal, ci(0)));
  Value sign = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, u, ci(28)), ci(8));
  return arith::OrIOp::create(b, loc, code, sign);
}

Value emitPackE2M1(OpBuilder &b, Location loc, Value f32Vector) {
  int64_t n = cast<VectorType>(f32Vector.getType()).getNumElements();
  Value codes = emitE2M1Code(b, loc, f32Vector);
  SmallVector<int64_t> even, odd;
  for (int64_t i = 0; i + 1 < n; i += 2) {
    even.push_back(i);
    odd.push_back(i + 1);
  }
  Value lo = vector::ShuffleOp::create(b, loc, codes, codes, even);
  Value hi = vector::ShuffleOp::create(b, loc, codes, codes, odd);
  Value four = Shaped(b, loc, lo).i32(4);
  Value bytes = arith::OrIOp::create(b, loc, lo, arith::ShLIOp::create(b, loc, hi, four));
  return arith::TruncIOp::create(b, loc, VectorType::get({n / 2}, b.getI8Type()), bytes);
}

/// f32 values of E2M1 codes (i32 0..15, scalar or vector): 0, 0.5 for
/// exponent 0, else (1 + m / 2) * 2^(e - 1); bit 3 is the sign. The code's
/// exponent and mantissa bits placed as an f32's lowest exponent bits and top
/// mantissa bit read (1 + m / 2) * 2^(e - 127) (for e = 0 the subnormal
/// m * 2^-127), so one exact multiplication by 2^126 finishes the decode: six
/// operations instead of eleven (no flush to zero: tk emits no .ftz
/// multiplications and the CPU keeps subnormals).
Value emitE2M1Decode(OpBuilder &b, Location loc, Value codes) {
  Shaped sh(b, loc, codes);
  Type f32v = sh.of(b.getF32Type());
  auto ci = [&](int64_t v) { return sh.i32(v); };
  Value magnitude = arith::ShLIOp::create(b, loc, arith::AndIOp::create(b, loc, codes, ci(7)), ci(22));
  Value sign = arith::ShLIOp::create(b, loc, arith::AndIOp::create(b, loc, codes, ci(8)), ci(28));
  Value scaledDown = arith::BitcastOp::create(b, loc, f32v, arith::OrIOp::create(b, loc, magnitude, sign));
  return arith::MulFOp::create(b, loc, scaledDown, sh.f32(0x1p126f));
}

Value emitPowerOfTwo(OpBuilder &b, Location loc, Value shift) {
  auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
  shift = arith::MaxSIOp::create(b, loc, arith::MinSIOp::create(b, loc, shift, c32(127)), c32(-126));
  return arith::BitcastOp::create(b, loc, b.getF32Type(),
                                  arith::ShLIOp::create(b, loc, arith::AddIOp::create(b, loc, shift, c32(127)), c32(23)));
}

Value emitUnpackE2M1(OpBuilder &b, Location loc, Value bytes) {
  int64_t n = cast<VectorType>(bytes.getType()).getNumElements();
  auto vi32 = VectorType::get({n}, b.getI32Type());
  Value wide = arith::ExtUIOp::create(b, loc, vi32, bytes);
  Shaped sh(b, loc, wide);
  Value lo = emitE2M1Decode(b, loc, arith::AndIOp::create(b, loc, wide, sh.i32(0xF)));
  Value hi = emitE2M1Decode(b, loc, arith::ShRUIOp::create(b, loc, wide, sh.i32(4)));
  SmallVector<int64_t> interleave; // lo[0], hi[0], lo[1], hi[1], ...
  for (int64_t i = 0; i < n; ++i) {
    interleave.push_back(i);
    interleave.push_back(n + i);
  }
  return vector::ShuffleOp::create(b, loc, lo, hi, interleave);
}

/// Steps 3-4 of the E5M6 encode for c = h >> 4 and u = bits(v) (i32, scalar
/// or vector alike): c + 1 when (c & 1) + (u & 0x1FFFF) > 0x10000, i.e. when
/// that sum plus 0x7FFEFFFF reaches bit 31 (the sum is at most 0x20000: no
/// wrap); the code is the low 12 bits. One form for the integer and the
/// hardware encode, so the CPU path's tests check the GPU's rounding too.
static Value roundE5M6(OpBuilder &b, Location loc, Value c, Value u) {
  Shaped sh(b, loc, c);
  auto ci = [&](int64_t v) { return sh.i32(v); };
  Value rest = arith::AndIOp::create(b, loc, u, ci(0x1FFFF));
  Value sum = arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, rest, arith::AndIOp::create(b, loc, c, ci(1))), ci(0x7FFEFFFF));
  return arith::AndIOp::create(b, loc, arith::AddIOp::create(b, loc, c, arith::ShRUIOp::create(b, loc, sum, ci(31))),
                               ci(0xFFF));
}

/// E5M6 code (i32, 12 bits) of an f32 value, scalar or vector (quant.md 2.4):
/// h = fp16 bits of v rounded toward zero (subnormals kept), c = h >> 4, and
/// c + 1 when (c & 1) + (bits(v) & 0x1FFFF) > 0x10000.
Value emitE5M6Code(OpBuilder &b, Location loc, Value input) {
  Shaped sh(b, loc, input);
  Type i32v = sh.of(b.getI32Type());
  auto ci = [&](int64_t v) { return sh.i32(v); };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) { return arith::CmpIOp::create(b, loc, p, x, y); };
  Value u = arith::BitcastOp::create(b, loc, i32v, input);
  Value sign = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, u, ci(16)), ci(0x8000));
  Value biased = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, u, ci(23)), ci(0xFF));
  Value mant = arith::AndIOp::create(b, loc, u, ci(0x7FFFFF));
  // Normal fp16 (biased f32 exponent 113..142): rebias 127 -> 15, keep 10 mantissa bits (truncated).
  Value normal = arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, arith::SubIOp::create(b, loc, biased, ci(112)), ci(10)),
                                      arith::ShRUIOp::create(b, loc, mant, ci(13)));
  // Subnormal fp16: |v| / 2^-24 truncated = (1.mant << 23) >> (126 - biased), zero once the shift reaches 24.
  Value shift = arith::SubIOp::create(b, loc, ci(126), biased);
  Value sub = arith::ShRUIOp::create(b, loc, arith::OrIOp::create(b, loc, mant, ci(0x800000)),
                                     arith::MinUIOp::create(b, loc, shift, ci(31)));
  sub = arith::SelectOp::create(b, loc, cmp(arith::CmpIPredicate::ult, shift, ci(24)), sub, ci(0));
  Value mag = arith::SelectOp::create(b, loc, cmp(arith::CmpIPredicate::uge, biased, ci(113)), normal, sub);
  // Beyond the fp16 range RZ saturates to the largest finite (unreachable after scaling).
  mag = arith::SelectOp::create(b, loc, cmp(arith::CmpIPredicate::ugt, biased, ci(142)), ci(0x7BFF), mag);
  return roundE5M6(b, loc, arith::ShRUIOp::create(b, loc, arith::OrIOp::create(b, loc, mag, sign), ci(4)), u);
}

/// Step 1 of the E5M6 encode on the GPU: the fp16 bits of each value rounded
/// toward zero (cvt.rz.f16x2.f32 on pairs, subnormals kept), as i32; then
/// steps 2-4 as emitE5M6Code. Finite values beyond fp16 become its largest
/// finite, as in the integer form; inf stays inf (unreachable after scaling).
static Value hardwareE5M6Code(OpBuilder &b, Location loc, Value input) {
  int64_t n = cast<VectorType>(input.getType()).getNumElements(), m = n / 2;
  // Each pair's fp16 bits as one 32-bit word: value 2p in bits 0-15, value
  // 2p + 1 in bits 16-31. Working on words spares the 16-bit extractions.
  Value w = emitHalfPairWords(b, loc, input, b.getF16Type(), /*towardZero=*/true);
  Shaped sh(b, loc, w);
  auto ci = [&](int64_t v) { return sh.i32(v); };
  SmallVector<int64_t> even, odd, interleave;
  for (int64_t p = 0; p < m; ++p) {
    even.push_back(2 * p), odd.push_back(2 * p + 1);
    interleave.push_back(p), interleave.push_back(m + p);
  }
  Value u = arith::BitcastOp::create(b, loc, VectorType::get({n}, b.getI32Type()), input);
  // Step 2 per half (c = h >> 4), then roundE5M6 with the halves' own bits.
  auto rounded = [&](Value c, ArrayRef<int64_t> lanes) {
    return roundE5M6(b, loc, c, vector::ShuffleOp::create(b, loc, u, u, lanes));
  };
  Value lo = rounded(arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, w, ci(4)), ci(0xFFF)), even);
  Value hi = rounded(arith::ShRUIOp::create(b, loc, w, ci(20)), odd);
  return vector::ShuffleOp::create(b, loc, lo, hi, interleave);
}

Value emitPackE5M6(OpBuilder &b, Location loc, Value f32Vector, bool hardware) {
  int64_t n = cast<VectorType>(f32Vector.getType()).getNumElements();
  Value codes = hardware && n % 2 == 0 ? hardwareE5M6Code(b, loc, f32Vector) : emitE5M6Code(b, loc, f32Vector);
  auto c = [&](int64_t v) { return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)); };
  auto shl = [&](Value x, int64_t s) { return arith::ShLIOp::create(b, loc, x, c(s)); };
  auto shr = [&](Value x, int64_t s) { return arith::ShRUIOp::create(b, loc, x, c(s)); };
  auto andi = [&](Value x, int64_t m) { return arith::AndIOp::create(b, loc, x, c(m)); };
  auto ori = [&](std::initializer_list<Value> xs) {
    Value acc;
    for (Value x : xs)
      acc = acc ? Value(arith::OrIOp::create(b, loc, acc, x)) : x;
    return acc;
  };
  SmallVector<Value> words;
  for (int64_t base = 0; base + 8 <= n; base += 8) {
    Value h[8];
    for (int k = 0; k < 8; ++k)
      h[k] = vector::ExtractOp::create(b, loc, codes, ArrayRef<int64_t>{base + k});
    words.push_back(ori({shl(h[0], 20), shl(h[1], 8), shr(h[2], 4)}));
    words.push_back(ori({shl(andi(h[2], 0xF), 28), shl(h[3], 16), shl(h[4], 4), shr(h[5], 8)}));
    words.push_back(ori({shl(andi(h[5], 0xFF), 24), shl(h[6], 12), h[7]}));
  }
  // The words' little-endian bytes, as the target (NVPTX) stores them: a
  // bitcast, where truncating each byte out of its word made the backend
  // assemble the words again from bytes (byte permutes per word).
  auto wordsType = VectorType::get({(int64_t)words.size()}, b.getI32Type());
  return vector::BitCastOp::create(b, loc, VectorType::get({4 * (int64_t)words.size()}, b.getI8Type()),
                                   vector::FromElementsOp::create(b, loc, wordsType, words));
}

void emitE5M6CodesOfWords(OpBuilder &b, Location loc, const Value w[3], Value h[8]) {
  auto c = [&](int64_t v) { return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)); };
  auto shl = [&](Value x, int64_t s) -> Value { return arith::ShLIOp::create(b, loc, x, c(s)); };
  auto shr = [&](Value x, int64_t s) -> Value { return arith::ShRUIOp::create(b, loc, x, c(s)); };
  auto andi = [&](Value x, int64_t m) -> Value { return arith::AndIOp::create(b, loc, x, c(m)); };
  auto ori = [&](Value x, Value y) -> Value { return arith::OrIOp::create(b, loc, x, y); };
  h[0] = shr(w[0], 20);
  h[1] = andi(shr(w[0], 8), 0xFFF);
  h[2] = ori(shl(andi(w[0], 0xFF), 4), shr(w[1], 28));
  h[3] = andi(shr(w[1], 16), 0xFFF);
  h[4] = andi(shr(w[1], 4), 0xFFF);
  h[5] = ori(shl(andi(w[1], 0xF), 8), shr(w[2], 24));
  h[6] = andi(shr(w[2], 12), 0xFFF);
  h[7] = andi(w[2], 0xFFF);
}

Value emitE5M6Decode(OpBuilder &b, Location loc, Value codes, bool hardware) {
  Shaped sh(b, loc, codes);
  auto ci = [&](int64_t v) { return sh.i32(v); };
  Value h = arith::ShLIOp::create(b, loc, codes, ci(4)); // fp16 bits
  if (hardware) {
    Value half = arith::BitcastOp::create(b, loc, sh.of(b.getF16Type()),
                                          arith::TruncIOp::create(b, loc, sh.of(b.getI16Type()), h));
    return arith::ExtFOp::create(b, loc, sh.of(b.getF32Type()), half);
  }
  Type f32v = sh.of(b.getF32Type());
  Value sign = arith::ShLIOp::create(b, loc, arith::AndIOp::create(b, loc, h, ci(0x8000)), ci(16));
  Value mag = arith::AndIOp::create(b, loc, h, ci(0x7FFF));
  Value exp = arith::ShRUIOp::create(b, loc, mag, ci(10));
  // Normal: rebias 15 -> 127; subnormal: mantissa * 2^-24 (exact); exponent 31: Inf/NaN.
  Value normal = arith::AddIOp::create(b, loc, arith::ShLIOp::create(b, loc, mag, ci(13)), ci(112 << 23));
  Value mant = arith::AndIOp::create(b, loc, mag, ci(0x3FF));
  Value sub = arith::BitcastOp::create(
      b, loc, sh.of(b.getI32Type()),
      arith::MulFOp::create(b, loc, arith::UIToFPOp::create(b, loc, f32v, mant), sh.f32(0x1p-24f)));
  Value special = arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, mant, ci(13)), ci(0x7F800000));
  auto eq = [&](Value x, int64_t v) { return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, ci(v)); };
  Value bitsOut = arith::SelectOp::create(b, loc, eq(exp, 0), sub,
                                          arith::SelectOp::create(b, loc, eq(exp, 31), special, normal));
  return arith::BitcastOp::create(b, loc, f32v, arith::OrIOp::create(b, loc, bitsOut, sign));
}

Value emitUnpackE5M6(OpBuilder &b, Location loc, Value bytes) {
  int64_t n = cast<VectorType>(bytes.getType()).getNumElements();
  // Little-endian words: the bytes' vector reinterpreted as i32 lanes.
  Value words = vector::BitCastOp::create(b, loc, VectorType::get({n / 4}, b.getI32Type()), bytes);
  SmallVector<Value> codes;
  for (int64_t base = 0; base + 3 <= n / 4; base += 3) {
    Value w[3], h[8];
    for (int k = 0; k < 3; ++k)
      w[k] = vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{base + k});
    emitE5M6CodesOfWords(b, loc, w, h);
    codes.append(h, h + 8);
  }
  Value all = vector::FromElementsOp::create(b, loc, VectorType::get({(int64_t)codes.size()}, b.getI32Type()), codes);
  return emitE5M6Decode(b, loc, all, /*hardware=*/true);
}

/// Exact decode by integer arithmetic: a normal code moves its exponent and
/// mantissa bits into place and rebiases (7 -> 127); a subnormal code m gives
/// m * 2^-9 (an exact float product); 0x7F / 0xFF give NaN.
/// sm_89+: cvt.rn.f16x2.e4m3x2 on pairs (exact: every e4m3 value is an fp16
/// value), then f16 -> f32. Two instructions per pair instead of about a dozen
/// integer operations per element.
static Value hardwareE4M3ToF32(OpBuilder &b, Location loc, Value codes) {
  int64_t n = cast<VectorType>(codes.getType()).getNumElements();
  MLIRContext *ctx = b.getContext();
  auto pairType = VectorType::get({2}, b.getI8Type());
  auto f16Pair = VectorType::get({2}, b.getF16Type()), f32Pair = VectorType::get({2}, b.getF32Type());
  Value zero = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
  SmallVector<Value> values;
  for (int64_t i = 0; i < n; i += 2) {
    Value lo = vector::ExtractOp::create(b, loc, codes, ArrayRef<int64_t>{i});
    Value hi = i + 1 < n ? Value(vector::ExtractOp::create(b, loc, codes, ArrayRef<int64_t>{i + 1})) : zero;
    Value pair = vector::FromElementsOp::create(b, loc, pairType, ValueRange{lo, hi});
    Value halves = NVVM::ConvertF8x2ToF16x2Op::create(b, loc, f16Pair, pair, b.getBoolAttr(false),
                                                      TypeAttr::get(Float8E4M3FNType::get(ctx)));
    Value wide = arith::ExtFOp::create(b, loc, f32Pair, halves);
    values.push_back(vector::ExtractOp::create(b, loc, wide, ArrayRef<int64_t>{0}));
    if (i + 1 < n)
      values.push_back(vector::ExtractOp::create(b, loc, wide, ArrayRef<int64_t>{1}));
  }
  return vector::FromElementsOp::create(b, loc, VectorType::get({n}, b.getF32Type()), values);
}

Value emitE4M3ToF32(OpBuilder &b, Location loc, Value codes, bool hardware) {
  if (hardware && isa<VectorType>(codes.getType()))
    return hardwareE4M3ToF32(b, loc, codes);
  Shaped sh(b, loc, codes);
  Type i32v = sh.of(b.getI32Type()), f32v = sh.of(b.getF32Type());
  auto ci = [&](int64_t v) { return sh.i32(v); };
  Value q = arith::ExtUIOp::create(b, loc, i32v, codes);
  Value sign = arith::ShLIOp::create(b, loc, arith::AndIOp::create(b, loc, q, ci(0x80)), ci(24));
  Value a = arith::AndIOp::create(b, loc, q, ci(0x7F));
  Value normal = arith::AddIOp::create(b, loc, arith::ShLIOp::create(b, loc, a, ci(20)), ci(120 << 23));
  Value sub = arith::MulFOp::create(b, loc, arith::UIToFPOp::create(b, loc, f32v, a),
                                    sh.f32(1.0f / 512.0f));
  Value subBits = arith::BitcastOp::create(b, loc, i32v, sub);
  Value isSub = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a, ci(8));
  Value mag = arith::SelectOp::create(b, loc, isSub, subBits, normal);
  Value isNan = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, ci(0x7F));
  mag = arith::SelectOp::create(b, loc, isNan, ci(0x7FC00000), mag);
  return arith::BitcastOp::create(b, loc, f32v, arith::OrIOp::create(b, loc, mag, sign));
}

} // namespace tk::compiler
