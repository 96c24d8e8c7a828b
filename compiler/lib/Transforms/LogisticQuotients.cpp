//===- LogisticQuotients.cpp - tile.silu and tile.sigmoid, divided --------===//
//
// SiLU x / (1 + e^-x) and the sigmoid 1 / (1 + e^-x) (SwiGLU forward and
// backward), with the spec's IEEE division (quant.md: fl(l / fl(1 +
// expf(-l)))). div.rn.f32 is a multiply-and-correct sequence guarded by FCHK
// and a branch to a slow subroutine; each branch ends a basic block, so
// ptxas schedules a thread's divisions one after another. Where the target
// allows (option multiply-and-correct), this pass emits the same sequence
// without the guard, in straight-line code, after moving the operands into
// its safe range (n = x or 1, d = 1 + e^-x):
//   s  = d >= 2^64 ? 2^-64 : 1          (exact scaling: then d' < 2^64, and
//   d' = d s, n' = n s                   n' is normal, since x <= -44)
//   y0 = rcp.approx.ftz(d')             (d' in [1, 2^64): y0 normal)
//   y  = fma(y0, fma(-d', y0, 1), y0)   (one Newton step)
//   q0 = n' y, r = fma(d', q0, -n')     (the exact residual, negated)
//   q  = fma(-r, y, q0)                 (the correctly rounded quotient)
// q is NaN exactly where the operands are not both finite (n = +inf, d = 1;
// n = -inf or x < -88.7, d = inf; NaN): there n' y0 is the IEEE quotient
// (inf, NaN, or a zero of n's sign). The residual is taken negated so that
// n = -0 gives -0 (q0 = -0, r = +0: -0 + -0); q's exact value
// q0 + (n' - d' q0) y is zero only for n = 0, so for every other n it
// rounds with n's sign.
// A lone quotient (a silu without a sigmoid of the same x) takes, instead,
// the sequence without scaling or the non-finite select (for |x| <= 80 the
// scale is 1 and every operand finite, so the arithmetic is the full
// form's) under one check per thread: when every |x| of the thread's
// values is at most 80 (NaN is not), else div.rn.f32 for all of them; 7
// instructions and a compare per value against div.rn.f32's 10.
// The proof is by exhaustion: a GPU test runs every one of the 2^32 f32
// values of x through both quotients and through a lone silu and compares
// them with div.rn.f32 bit for bit (tests/kernels/
// logistic_division_gpu_test.cpp). It ran on sm_90, so the pipeline asks
// for the sequence there only (Pipeline.cpp).
//===----------------------------------------------------------------------===//
#include "tk/compiler/Conversion/ScalarMath.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILELOGISTICQUOTIENTS
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk;
using namespace tk::compiler;

namespace {

/// The sequence for one lane. `inRange`: the caller has checked |x| <= 80,
/// so d is in [1, 2^116] and n finite: no scaling, no non-finite case (the
/// arithmetic the full form does there, its scale being 1).
Value quotientScalar(OpBuilder &b, Location loc, Value n, Value d, bool inRange) {
  Shaped c(b, loc, d);
  auto f32 = [&](float v) { return c.f32(v); };
  auto mul = [&](Value x, Value y) { return arith::MulFOp::create(b, loc, x, y).getResult(); };
  auto fma = [&](Value x, Value y, Value z) { return LLVM::FMAOp::create(b, loc, x, y, z).getResult(); };
  Value ds = d, ns = n;
  if (!inRange) {
    Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, d, f32(0x1p64f));
    Value s = arith::SelectOp::create(b, loc, big, f32(0x1p-64f), f32(1.0f));
    ds = mul(d, s), ns = mul(n, s);
  }
  auto neg = [&](Value v) { return arith::NegFOp::create(b, loc, v).getResult(); };
  Value y0 = LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(), b.getStringAttr("llvm.nvvm.rcp.approx.ftz.f"),
                                           ValueRange{ds})
                 .getResult(0);
  Value y = fma(y0, fma(neg(ds), y0, f32(1.0f)), y0);
  Value q0 = mul(ns, y);
  // The residual negated, d' q0 - n' (exact), and q = q0 - that y: for
  // n' = -0, q0 = -0 and the residual is +0, so q = -0 + -0 keeps the zero's
  // sign (n' - d' q0 would be +0, and q0 + 0 y +0); elsewhere the same
  // values as q0 + (n' - d' q0) y, which need n's sign copied back.
  Value q = fma(neg(fma(ds, q0, neg(ns))), y, q0);
  if (!inRange) {
    Value notFinite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, q, q);
    q = arith::SelectOp::create(b, loc, notFinite, mul(ns, y0), q);
  }
  return q;
}

Value quotient(OpBuilder &b, Location loc, Value n, Value d, bool inRange) {
  return perLane(b, loc, {n, d}, [inRange](OpBuilder &b, Location loc, ValueRange v) {
    return quotientScalar(b, loc, v[0], v[1], inRange);
  });
}

/// A lone division (all of a thread's values of it in one vector): the
/// in-range sequence for every lane of a group of `guardValues` lanes (0:
/// all) when each |x| of the group is at most 80 (NaN is not), else IEEE
/// division for all of them; one branch per thread and group, not per value.
Value guardedQuotient(OpBuilder &b, Location loc, Value n, Value d, Value x, int64_t guardValues) {
  auto vec = dyn_cast<VectorType>(d.getType());
  const int64_t lanes = vec ? vec.getNumElements() : 1;
  const int64_t group = guardValues > 0 ? std::min(guardValues, lanes) : lanes;
  auto lane = [&](Value v, int64_t i) -> Value {
    return vec ? vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i}).getResult() : v;
  };
  Value limit = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(80.0f));
  SmallVector<Value> results;
  for (int64_t first = 0; first < lanes; first += group) {
    const int64_t count = std::min(group, lanes - first);
    SmallVector<Value> ns, ds;
    // An AND of per-lane compares (setp with .and in SASS), not a vector
    // reduction of i1, which LLVM widens to 16-bit integers and selects.
    Value inside;
    for (int64_t i = first; i < first + count; ++i) {
      ns.push_back(lane(n, i)), ds.push_back(lane(d, i));
      // |x| as bits (absoluteValue): math.absf becomes a libdevice call in the GPU conversion
      Value ok = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, absoluteValue(b, loc, lane(x, i)), limit);
      inside = inside ? arith::AndIOp::create(b, loc, inside, ok).getResult() : ok;
    }
    Type groupType = count == 1 ? Type(b.getF32Type()) : Type(VectorType::get({count}, b.getF32Type()));
    auto pack = [&](OpBuilder &at, SmallVector<Value> values) -> Value {
      return count == 1 ? values[0] : vector::FromElementsOp::create(at, loc, groupType, values).getResult();
    };
    auto branch = scf::IfOp::create(b, loc, TypeRange{groupType}, inside, /*withElseRegion=*/true);
    OpBuilder fast = branch.getThenBodyBuilder(), ieee = branch.getElseBodyBuilder();
    SmallVector<Value> fastValues, ieeeValues;
    for (int64_t i = 0; i < count; ++i) {
      fastValues.push_back(quotientScalar(fast, loc, ns[i], ds[i], /*inRange=*/true));
      ieeeValues.push_back(arith::DivFOp::create(ieee, loc, ns[i], ds[i]));
    }
    scf::YieldOp::create(fast, loc, pack(fast, fastValues));
    scf::YieldOp::create(ieee, loc, pack(ieee, ieeeValues));
    for (int64_t i = 0; i < count; ++i)
      results.push_back(count == 1 ? branch.getResult(0)
                                   : vector::ExtractOp::create(b, loc, branch.getResult(0), ArrayRef<int64_t>{i})
                                         .getResult());
  }
  return vec ? vector::FromElementsOp::create(b, loc, vec, results).getResult() : results[0];
}

tile::QuotientForm formOf(Operation *op) {
  if (auto silu = dyn_cast<tile::SiluOp>(op))
    return silu.getForm();
  return cast<tile::SigmoidOp>(op).getForm();
}

/// 1.0 shaped like `x`.
Value one(OpBuilder &b, Location loc, Value x) { return Shaped(b, loc, x).f32(1.0f); }

struct TileLogisticQuotients : public tk::tile::impl::TileLogisticQuotientsBase<TileLogisticQuotients> {
  using Base::Base;

  void runOnOperation() override {
    // Grouped by x: a silu and a sigmoid of one x share d = 1 + e^-x (one
    // exp), and, with the multiply-and-correct sequence, d's scaling,
    // reciprocal and Newton step (the SwiGLU backward: 135.4 -> 131.7 us on
    // the H200 against div.rn.f32). A lone quotient takes the guarded short
    // sequence: the full one is 4 instructions more than div.rn.f32's fast
    // path, and the issue-bound forward kernels were slower with it
    // (per-token 190.0 -> 223.8 us), while the guarded one made the
    // per-channel b = 32 kernel 368.4 -> 326.4 us (128 registers against
    // 136); one check per 8 or 2 values (guard-values) was slower still.
    llvm::MapVector<Value, SmallVector<Operation *>> byArgument;
    getOperation().walk([&](Operation *op) {
      if (isa<tile::SiluOp, tile::SigmoidOp>(op))
        byArgument[op->getOperand(0)].push_back(op);
    });
    for (auto &[x, ops] : byArgument) {
      const int64_t fast = llvm::count_if(ops, [](Operation *op) { return formOf(op) == tile::QuotientForm::fast; });
      Value d;
      for (Operation *op : ops) {
        OpBuilder b(op);
        Location loc = op->getLoc();
        if (!d) { // at the first quotient of x, as `one + exp(-x)` reads
          Value c1 = one(b, loc, x);
          Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
          d = arith::AddFOp::create(b, loc, c1, e);
        }
        Value n = isa<tile::SiluOp>(op) ? x : one(b, loc, x);
        const bool ieee = formOf(op) == tile::QuotientForm::ieee_div;
        Value q = !multiplyAndCorrect || ieee ? Value(arith::DivFOp::create(b, loc, n, d))
                  : fast >= 2                 ? quotient(b, loc, n, d, /*inRange=*/false)
                                              : guardedQuotient(b, loc, n, d, x, guardValues);
        op->getResult(0).replaceAllUsesWith(q);
        op->erase();
      }
    }
  }
};

} // namespace
