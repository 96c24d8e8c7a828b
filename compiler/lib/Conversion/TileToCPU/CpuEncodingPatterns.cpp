//===- CpuEncodingPatterns.cpp - packed number formats, element by element ===//
#include "CpuPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// The FP4 code (i32, 0..15) of element `ivs` of values packed two per byte
/// in `bytes`: nibble ivs.back() % 2 (low first) of byte ivs.back() / 2.
static Value packedCode(OpBuilder &b, Location l, Value bytes, ValueRange ivs) {
  auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, l, b.getI32Type(), v); };
  SmallVector<Value> at(ivs.begin(), ivs.end());
  Value two = arith::ConstantIndexOp::create(b, l, 2);
  at.back() = arith::DivUIOp::create(b, l, ivs.back(), two);
  Value byte = arith::ExtUIOp::create(b, l, b.getI32Type(), memref::LoadOp::create(b, l, bytes, at));
  Value odd = arith::IndexCastOp::create(b, l, b.getI32Type(), arith::RemUIOp::create(b, l, ivs.back(), two));
  return arith::AndIOp::create(b, l, arith::ShRUIOp::create(b, l, byte, arith::MulIOp::create(b, l, odd, c32(4))),
                               c32(0xF));
}

/// out[..., j] = decode(nibble j % 2 of in[..., j / 2])
struct UnpackE2M1Pattern : TileToCpuPattern<UnpackE2M1Op> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(UnpackE2M1Op op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type), in = a.getInput();
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      memref::StoreOp::create(ib, l, emitE2M1Decode(ib, l, packedCode(ib, l, in, ivs)), buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

/// out[..., j] = e4m3(decode(nibble j % 2 of codes[..., j / 2]) * 2^clamp(shift, -126, 127))
struct E2M1ToE4M3Pattern : TileToCpuPattern<E2M1ToE4M3Op> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(E2M1ToE4M3Op op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type), codes = a.getCodes(), shifts = a.getShift();
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value power = emitPowerOfTwo(ib, l, memref::LoadOp::create(ib, l, shifts, ivs));
      Value value = arith::MulFOp::create(ib, l, emitE2M1Decode(ib, l, packedCode(ib, l, codes, ivs)), power);
      memref::StoreOp::create(ib, l, emitF32ToE4M3(ib, l, value, /*hardware=*/false), buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

/// Every 12 bytes along the last dimension (3 little-endian words) -> 8 values.
struct UnpackE5M6Pattern : TileToCpuPattern<UnpackE5M6Op> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(UnpackE5M6Op op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type), in = a.getInput();
    SmallVector<int64_t> groups(type.getShape());
    groups.back() /= 8;
    emit.loopNest(groups, [&](OpBuilder &ib, Location l, ValueRange ivs) {
      auto ci = [&](int64_t v) { return arith::ConstantIntOp::create(ib, l, ib.getI32Type(), v); };
      auto idx = [&](int64_t v) { return arith::ConstantIndexOp::create(ib, l, v); };
      SmallVector<Value> at(ivs.begin(), ivs.end());
      Value w[3], h[8];
      for (int word = 0; word < 3; ++word) {
        w[word] = ci(0);
        for (int k = 0; k < 4; ++k) {
          at.back() = arith::AddIOp::create(ib, l, arith::MulIOp::create(ib, l, ivs.back(), idx(12)), idx(4 * word + k));
          Value byte = arith::ExtUIOp::create(ib, l, ib.getI32Type(), memref::LoadOp::create(ib, l, in, at));
          w[word] = arith::OrIOp::create(ib, l, w[word], arith::ShLIOp::create(ib, l, byte, ci(8 * k)));
        }
      }
      emitE5M6CodesOfWords(ib, l, w, h);
      for (int k = 0; k < 8; ++k) {
        at.back() = arith::AddIOp::create(ib, l, arith::MulIOp::create(ib, l, ivs.back(), idx(8)), idx(k));
        memref::StoreOp::create(ib, l, emitE5M6Decode(ib, l, h[k], /*hardware=*/false), buf, at);
      }
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

/// Every 8 elements along the last dimension -> 3 little-endian words (12 bytes).
struct PackE5M6Pattern : TileToCpuPattern<PackE5M6Op> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(PackE5M6Op op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type), in = a.getInput();
    SmallVector<int64_t> groups(op.getInput().getType().getShape());
    groups.back() /= 8;
    emit.loopNest(groups, [&](OpBuilder &ib, Location l, ValueRange ivs) {
      auto ci = [&](int64_t v) { return arith::ConstantIntOp::create(ib, l, ib.getI32Type(), v); };
      auto idx = [&](int64_t v) { return arith::ConstantIndexOp::create(ib, l, v); };
      SmallVector<Value> at(ivs.begin(), ivs.end());
      Value h[8];
      for (int k = 0; k < 8; ++k) {
        at.back() = arith::AddIOp::create(ib, l, arith::MulIOp::create(ib, l, ivs.back(), idx(8)), idx(k));
        h[k] = emitE5M6Code(ib, l, memref::LoadOp::create(ib, l, in, at));
      }
      auto shl = [&](Value x, int64_t s) -> Value { return arith::ShLIOp::create(ib, l, x, ci(s)); };
      auto shr = [&](Value x, int64_t s) -> Value { return arith::ShRUIOp::create(ib, l, x, ci(s)); };
      auto andi = [&](Value x, int64_t m) -> Value { return arith::AndIOp::create(ib, l, x, ci(m)); };
      auto ori = [&](std::initializer_list<Value> xs) {
        Value acc;
        for (Value x : xs)
          acc = acc ? Value(arith::OrIOp::create(ib, l, acc, x)) : x;
        return acc;
      };
      Value w[3] = {ori({shl(h[0], 20), shl(h[1], 8), shr(h[2], 4)}),
                    ori({shl(andi(h[2], 0xF), 28), shl(h[3], 16), shl(h[4], 4), shr(h[5], 8)}),
                    ori({shl(andi(h[5], 0xFF), 24), shl(h[6], 12), h[7]})};
      for (int word = 0; word < 3; ++word)
        for (int k = 0; k < 4; ++k) {
          at.back() = arith::AddIOp::create(ib, l, arith::MulIOp::create(ib, l, ivs.back(), idx(12)), idx(4 * word + k));
          memref::StoreOp::create(ib, l, arith::TruncIOp::create(ib, l, ib.getI8Type(), shr(w[word], 8 * k)), buf, at);
        }
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

/// out[..., j] = code(in[..., 2j]) | code(in[..., 2j + 1]) << 4
struct PackE2M1Pattern : TileToCpuPattern<PackE2M1Op> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(PackE2M1Op op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type), in = a.getInput();
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      SmallVector<Value> at(ivs.begin(), ivs.end());
      Value two = arith::ConstantIndexOp::create(ib, l, 2), one = arith::ConstantIndexOp::create(ib, l, 1);
      at.back() = arith::MulIOp::create(ib, l, ivs.back(), two);
      Value lo = emitE2M1Code(ib, l, memref::LoadOp::create(ib, l, in, at));
      at.back() = arith::AddIOp::create(ib, l, at.back(), one);
      Value hi = emitE2M1Code(ib, l, memref::LoadOp::create(ib, l, in, at));
      Value four = arith::ConstantIntOp::create(ib, l, ib.getI32Type(), 4);
      Value byte = arith::OrIOp::create(ib, l, lo, arith::ShLIOp::create(ib, l, hi, four));
      memref::StoreOp::create(ib, l, arith::TruncIOp::create(ib, l, ib.getI8Type(), byte), buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};
} // namespace

void populateCpuEncodingPatterns(RewritePatternSet &set, const TypeConverter &converter, CpuKernelStates &states) {
  addTileToCpuPatterns<UnpackE2M1Pattern, E2M1ToE4M3Pattern, UnpackE5M6Pattern, PackE5M6Pattern, PackE2M1Pattern>(
      set, converter, states);
}

} // namespace tk::compiler
