//===- E2M1ToE4M3.cpp - FP4 codes to e4m3 codes by table lookup ------------===//
//
// tile.e2m1_to_e4m3: e4m3(decode(code) * 2^shift). A code's sign bit does
// not change the magnitude's encoding (e4m3 is sign-magnitude and the
// rounding symmetric), so for one shift the eight magnitudes' codes form an
// 8-byte table, and a byte permute (prmt, default mode: nibble i of the
// selector picks result byte i out of 8) looks up 4 codes at once: the
// packed codes' low 16 bits, masked to their magnitude bits, are the
// selector. The signs come from a second permute that picks 0x80 or 0 per
// byte, XORed in. Per 8 values: 2 shifts, 4 masks, 4 permutes, 2 XORs,
// against a decode, a multiplication and half an encode per value. Each
// distinct shift a thread holds (its slots' shifts come from expansions:
// one per input block) builds its table once: 8 products and 4 pair
// encodes.
//===----------------------------------------------------------------------===//
#include "ThreadEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>

using namespace mlir;

namespace tk::compiler {

namespace {

struct Table {
  Value lo, hi; ///< bytes 0-3 and 4-7: the e4m3 codes of magnitudes 0..7
};

} // namespace

Value ThreadEmitter::e2m1ToE4M3(Value codes, Value shifts) {
  Type i32 = b.getI32Type();
  auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v).getResult(); };
  auto permute = [&](Value lo, Value hi, Value selector) {
    return NVVM::PermuteOp::create(b, loc, i32, lo, hi, selector, NVVM::PermuteMode::DEFAULT).getResult();
  };
  const int64_t n = cast<VectorType>(shifts.getType()).getNumElements();

  // One table per distinct shift (its source element), built where first needed.
  std::map<std::pair<void *, int64_t>, Table> tables;
  auto tableOf = [&](int64_t slot) -> Table {
    auto [source, at] = slotSource(shifts, slot);
    auto [it, added] = tables.try_emplace({source.getAsOpaquePointer(), at});
    if (!added)
      return it->second;
    Value shift = isa<VectorType>(source.getType())
                      ? Value(vector::ExtractOp::create(b, loc, source, ArrayRef<int64_t>{at}))
                      : source;
    Value power = emitPowerOfTwo(b, loc, shift);
    auto f8 = VectorType::get({8}, b.getF32Type());
    Value magnitudes = arith::ConstantOp::create(
        b, loc, f8, DenseElementsAttr::get(f8, ArrayRef<float>{0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f}));
    Value products = arith::MulFOp::create(b, loc, magnitudes, vector::BroadcastOp::create(b, loc, f8, power));
    Value bytes = emitF32ToE4M3(b, loc, products, fp8Hardware);
    Value words = vector::BitCastOp::create(b, loc, VectorType::get({2}, i32), bytes);
    it->second = {vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{0}),
                  vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{1})};
    return it->second;
  };

  if (n % 8) { // no whole 32-bit words of codes: one value at a time
    SmallVector<Value> out;
    for (int64_t j = 0; j < n; ++j) {
      Value byte = arith::ExtUIOp::create(b, loc, i32, vector::ExtractOp::create(b, loc, codes, ArrayRef<int64_t>{j / 2}));
      Value code = arith::ShRUIOp::create(b, loc, byte, c32(4 * (j % 2)));
      Table t = tableOf(j);
      Value magnitude = permute(t.lo, t.hi, arith::AndIOp::create(b, loc, code, c32(7)));
      Value sign = arith::ShLIOp::create(b, loc, arith::AndIOp::create(b, loc, code, c32(8)), c32(4));
      out.push_back(arith::TruncIOp::create(b, loc, b.getI8Type(), arith::XOrIOp::create(b, loc, magnitude, sign)));
    }
    return vector::FromElementsOp::create(b, loc, VectorType::get({n}, b.getI8Type()), out);
  }
  Value words = vector::BitCastOp::create(b, loc, VectorType::get({n / 8}, i32), codes);
  SmallVector<Value> out;
  for (int64_t q = 0; q < n / 8; ++q) {
    Value w = vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{q});
    for (int64_t half = 0; half < 2; ++half) { // values 8q + 4 half .. + 3: nibbles 4 half .. + 3 of w
      Value low16 = half ? arith::ShRUIOp::create(b, loc, w, c32(16)).getResult() : w;
      Value selector = arith::AndIOp::create(b, loc, low16, c32(0x7777));
      // Sign bit 3 of each nibble -> bit 2: selects byte 4 (0x80) instead of byte 0 (0).
      Value signs = permute(c32(0), c32((int64_t)0x80808080),
                            arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, low16, c32(1)), c32(0x4444)));
      int64_t first = 8 * q + 4 * half;
      Table t = tableOf(first);
      bool uniform = true;
      for (int64_t k = 1; k < 4; ++k)
        uniform &= slotSource(shifts, first + k) == slotSource(shifts, first);
      Value magnitudes;
      if (uniform) {
        magnitudes = permute(t.lo, t.hi, selector);
      } else { // byte k from the table of value k
        for (int64_t k = 0; k < 4; ++k) {
          Table own = tableOf(first + k);
          Value byte = arith::AndIOp::create(b, loc, permute(own.lo, own.hi, selector), c32((int64_t)0xFF << (8 * k)));
          magnitudes = magnitudes ? arith::OrIOp::create(b, loc, magnitudes, byte).getResult() : byte;
        }
      }
      out.push_back(arith::XOrIOp::create(b, loc, magnitudes, signs));
    }
  }
  Value result = vector::FromElementsOp::create(b, loc, VectorType::get({n / 4}, i32), out);
  return vector::BitCastOp::create(b, loc, VectorType::get({n}, b.getI8Type()), result);
}

} // namespace tk::compiler
