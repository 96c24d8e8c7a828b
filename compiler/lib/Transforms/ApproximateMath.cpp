//===- ApproximateMath.cpp - math.log and math.log1p (f32) as arithmetic ---===//
//
// The GPU has no libdevice here, and CUDA's logf / log1pf differ from the C
// library's: both paths get one sequence of arith ops instead, hence the same
// bits (no FMA contraction on either). Upstream MLIR's polynomial
// approximations bound the absolute error, which is not enough near 1 (its
// log1p returns 0 for x ~ 6e-8, and softplus of x < -16 is such an x): this
// is the classic relative-accuracy scheme instead.
//   log(u):   u = 2^k m, m in [sqrt(1/2), sqrt(2)) (denormals scaled by
//             2^23 first), f = m - 1, s = f / (2 + f), and with a degree-8
//             odd minimax polynomial in s (coefficients Lg1..Lg4 of Sun's
//             fdlibm, single precision) log(u) = k ln2 + log1p(f), ln2 split
//             in a high and a low part.
//   log1p(x): u = 1 + x rounded, log(u) + (x - (u - 1)) / u, the second term
//             correcting for the rounding of u (x itself when u == 1).
// Special values as C's: log(0) = -inf, log(negative) = NaN, log(inf) = inf;
// log1p(-1) = -inf, log1p(x < -1) = NaN.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstring>

namespace tk::tile {
#define GEN_PASS_DEF_TILEAPPROXIMATEMATH
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;

namespace {

/// Arithmetic on f32 scalars or vectors of the shape of `like`.
struct F32Math {
  OpBuilder &b;
  Location loc;
  Type f32, i32, i1;

  F32Math(OpBuilder &b, Location loc, Type like) : b(b), loc(loc) {
    auto shaped = [&](Type e) -> Type {
      if (auto v = dyn_cast<VectorType>(like))
        return VectorType::get(v.getShape(), e);
      return e;
    };
    f32 = shaped(b.getF32Type()), i32 = shaped(b.getI32Type()), i1 = shaped(b.getI1Type());
  }
  Value splat(Type t, TypedAttr scalar) {
    if (auto v = dyn_cast<VectorType>(t))
      return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(v, scalar));
    return arith::ConstantOp::create(b, loc, scalar);
  }
  Value f(uint32_t bits) {
    float v;
    std::memcpy(&v, &bits, 4);
    return splat(f32, b.getF32FloatAttr(v));
  }
  Value i(int32_t v) { return splat(i32, b.getI32IntegerAttr(v)); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) { return arith::CmpFOp::create(b, loc, p, x, y); }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }

  Value log(Value u) {
    // Denormals: scaled into the normal range, their exponent corrected.
    Value tiny = cmp(arith::CmpFPredicate::OLT, u, f(0x00800000));
    Value scaled = select(tiny, mul(u, f(0x4B000000)), u); // 2^23
    Value bits = arith::BitcastOp::create(b, loc, i32, scaled);
    Value k = arith::SubIOp::create(b, loc, arith::ShRUIOp::create(b, loc, bits, i(23)), i(127));
    k = select(tiny, arith::SubIOp::create(b, loc, k, i(23)), k);
    Value mantissa = arith::AndIOp::create(b, loc, bits, i(0x007FFFFF));
    // m in [1, 2); above sqrt(2) it is halved (k + 1), so that f is small.
    Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, mantissa, i(0x3504F3));
    Value mBits = arith::OrIOp::create(b, loc, mantissa, select(high, i(0x3F000000), i(0x3F800000)));
    k = select(high, arith::AddIOp::create(b, loc, k, i(1)), k);
    Value fm = sub(arith::BitcastOp::create(b, loc, f32, mBits), f(0x3F800000));
    Value s = div(fm, add(f(0x40000000), fm));
    Value z = mul(s, s), w = mul(z, z);
    Value t1 = mul(w, add(f(0x3ECCCCE1), mul(w, f(0x3E789E26)))); // Lg2, Lg4
    Value t2 = mul(z, add(f(0x3F2AAAAA), mul(w, f(0x3E91E9EE)))); // Lg1, Lg3
    Value r = add(t2, t1);
    Value hfsq = mul(f(0x3F000000), mul(fm, fm));
    Value dk = arith::SIToFPOp::create(b, loc, f32, k);
    // k ln2_hi - ((hfsq - (s (hfsq + R) + k ln2_lo)) - f)
    Value inner = add(mul(s, add(hfsq, r)), mul(dk, f(0x3717F7D1)));
    Value result = sub(mul(dk, f(0x3F317180)), sub(sub(hfsq, inner), fm));
    // Special values: 0 -> -inf, negative -> NaN, +inf and NaN as they are.
    result = select(cmp(arith::CmpFPredicate::OEQ, u, f(0x7F800000)), u, result);
    result = select(cmp(arith::CmpFPredicate::OLT, u, f(0)), f(0x7FC00000), result);
    result = select(cmp(arith::CmpFPredicate::OEQ, u, f(0)), f(0xFF800000), result);
    return select(cmp(arith::CmpFPredicate::UNO, u, u), u, result);
  }

  Value log1p(Value x) {
    Value u = add(f(0x3F800000), x);
    // The rounding of 1 + x, corrected to first order (x itself when u == 1).
    Value correction = div(sub(x, sub(u, f(0x3F800000))), u);
    Value finite = cmp(arith::CmpFPredicate::OLT, u, f(0x7F800000));
    Value result = add(log(u), select(finite, correction, f(0)));
    // Below -1: NaN (log of a negative u); at -1: -inf; NaN stays.
    return select(cmp(arith::CmpFPredicate::OEQ, u, f(0)), f(0xFF800000), result);
  }
};

struct TileApproximateMath : public tk::tile::impl::TileApproximateMathBase<TileApproximateMath> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::LogOp, math::Log1pOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (!getElementTypeOrSelf(op->getResult(0).getType()).isF32()) {
        op->emitOpError() << "only f32 is lowered, got " << op->getResult(0).getType();
        return signalPassFailure();
      }
      OpBuilder b(op);
      F32Math m(b, op->getLoc(), op->getResult(0).getType());
      Value result = isa<math::LogOp>(op) ? m.log(op->getOperand(0)) : m.log1p(op->getOperand(0));
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
  }
};

} // namespace
