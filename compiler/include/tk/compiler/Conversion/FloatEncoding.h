//===- FloatEncoding.h - the number formats as IR, for both lowerings -----===//
//
// e4m3, E2M1 (FP4) and E5M6 encodings and decodings built from arith (and,
// with `hardware`, the sm_80+/sm_89+ cvt instructions), on scalars (the CPU
// lowering) or on per-thread vectors (the GPU lowering): one definition of
// each format's rounding for both paths (quant.md 2).
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Builders.h"

namespace tk::compiler {

/// f32 -> f8E4M3FN codes (as i8), round to nearest even, saturating, NaN -> 0x7F.
/// `hardware` uses the sm_89+ cvt instruction on pairs; otherwise integer arithmetic.
mlir::Value emitF32ToE4M3(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Vector, bool hardware);
/// E2M1 codes (i32 0..15) of f32 values, scalar or vector (see tile.pack_e2m1).
mlir::Value emitE2M1Code(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Value);
/// A per-thread vector of 2n f32 -> n bytes, element 2i in the low nibble.
mlir::Value emitPackE2M1(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Vector);
/// f32 values of E2M1 codes (i32 0..15), scalar or vector.
mlir::Value emitE2M1Decode(mlir::OpBuilder &b, mlir::Location loc, mlir::Value codes);
/// A per-thread vector of n bytes (two E2M1 codes each) -> 2n f32 values.
mlir::Value emitUnpackE2M1(mlir::OpBuilder &b, mlir::Location loc, mlir::Value bytes);
/// 2^shift as an f32 (scalar i32 shift), the shift clamped to f32's normal
/// exponents [-126, 127] (tile.e2m1_to_e4m3: beyond them every FP4 value
/// times the power encodes as 0 or +-448 either way).
mlir::Value emitPowerOfTwo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shift);
/// E5M6 codes (i32, 12 bits) of f32 values, scalar or vector (tile.pack_e5m6).
mlir::Value emitE5M6Code(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Value);
/// A per-thread vector of 8n f32 -> 12n bytes (8 codes in 3 little-endian words).
/// `hardware` takes step 1 (the fp16 bits rounded toward zero) from the
/// sm_80+ cvt.rz.f16x2.f32 on pairs; otherwise integer arithmetic. The two
/// agree on every finite value (quant.md 2.4; NaN inputs are unsupported).
mlir::Value emitPackE5M6(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Vector, bool hardware = false);
/// The 8 E5M6 codes (i32, 12 bits) of 3 little-endian i32 words (tile.unpack_e5m6).
void emitE5M6CodesOfWords(mlir::OpBuilder &b, mlir::Location loc, const mlir::Value words[3], mlir::Value codes[8]);
/// f32 values of E5M6 codes (i32, scalar or vector): the codes are the top 12
/// bits of fp16 values, decoded exactly. `hardware` widens through f16 (one
/// cvt per element on the GPU); otherwise integer arithmetic (no f16 library
/// calls on the CPU).
mlir::Value emitE5M6Decode(mlir::OpBuilder &b, mlir::Location loc, mlir::Value codes, bool hardware);
/// A per-thread vector of 12n bytes -> 8n f32 values (inverse of emitPackE5M6).
mlir::Value emitUnpackE5M6(mlir::OpBuilder &b, mlir::Location loc, mlir::Value bytes);
/// The 32-bit words of an f32 vector of even length converted pairwise to
/// `halfType` (f16 or bf16; sm_80+ cvt.{rn,rz}.{f16x2,bf16x2}.f32), element
/// 2p in the low half of word p, 2p + 1 in the high half: HalfPairs.cpp.
mlir::Value emitHalfPairWords(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Vector, mlir::Type halfType,
                              bool towardZero);
/// f32 -> bf16 (round to nearest even) of a per-thread vector of even length,
/// on pairs.
mlir::Value emitF32PairsToBf16(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Vector);
/// f8E4M3FN codes (i8, scalar or vector) -> f32, exact; NaN codes give NaN.
/// `hardware` (vectors only) uses the sm_89+ cvt on pairs; otherwise integer arithmetic.
mlir::Value emitE4M3ToF32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value codes, bool hardware);

} // namespace tk::compiler
