//===- LogisticDivision.cpp - x / (1 + e^-x) without a per-value branch ---===//
//
// SiLU and the sigmoid (SwiGLU forward and backward) divide by d = 1 + e^-x,
// and the spec wants IEEE division (quant.md: fl(l / fl(1 + expf(-l)))).
// div.rn.f32 is a multiply-and-correct sequence guarded by FCHK and a branch
// to a slow subroutine; each branch ends a basic block, so ptxas schedules
// the divisions of a thread one after another (S17: the SwiGLU per-channel
// kernels issue 72% of cycles with 3.8 warps per scheduler, 40 such blocks
// per tile). For the two quotients
//   n / d   with d = 1 + exp(-x), n = x (SiLU) or n = 1 (sigmoid)
// this pass emits the same multiply-and-correct sequence without the guard,
// in straight-line code, after moving the operands into its safe range:
//   s  = d >= 2^64 ? 2^-64 : 1          (exact scaling: then d' < 2^64, and
//   d' = d s, n' = n s                   n' is normal, since x <= -44)
//   y0 = rcp.approx.ftz(d')             (d' in [1, 2^64): y0 normal)
//   y  = fma(y0, fma(-d', y0, 1), y0)   (one Newton step)
//   q0 = n' y, r = fma(d', q0, -n')     (the exact residual, negated)
//   q  = fma(-r, y, q0)                 (the correctly rounded quotient)
// q is NaN exactly where the operands are not both finite (n = +inf, d = 1;
// n = -inf or x < -88.7, d = inf; NaN): there n' y0 is the IEEE quotient
// (inf, NaN, or a zero of n's sign). The residual is taken negated so that
// n = -0 gives -0 (q0 = -0, r = +0: -0 + -0); the form n' - d' q0 gives +0
// there, and S17 copied n's sign back (one more instruction per value);
// q's exact value q0 + (n' - d' q0) y is zero only for n = 0, so for every
// other n it rounds with n's sign either way.
// A lone division (SiLU in the SwiGLU forward kernels) takes, instead, the
// sequence without scaling or the non-finite select (for |x| <= 80 the
// scale is 1 and every operand finite, so the arithmetic is the full form's)
// under one check per thread and division: when every |x| of the thread's
// values is at most 80 (NaN is not), else div.rn.f32 for all of them. That
// is 7 instructions and a compare per value against div.rn.f32's 10.
// The proof is by exhaustion: a GPU test runs every one of the 2^32 f32
// values of x through both quotients and through a lone SiLU and compares
// them with div.rn.f32 bit for bit
// (tests/kernels/logistic_division_gpu_test.cpp). It matches only
// these two shapes (the numerator is the exponent's negated operand, or
// 1.0), the domain that test covers; any other division stays div.rn.f32.
// Shared divisors take the full form, lone ones the guarded form
// (lowerLogisticDivisions says why), and only for sm_90a, where the
// exhaustive check ran (Pipeline.cpp). TK_ABLATE=logistic-division keeps
// div.rn.f32 everywhere.
//===----------------------------------------------------------------------===//
#include "Distribute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace tk::compiler {

/// x where `d` is 1 + exp(-x) (either order of the addition), else null.
static Value logisticArgument(Value d) {
  auto add = d.getDefiningOp<arith::AddFOp>();
  if (!add)
    return {};
  for (auto [one, other] : {std::pair{add.getLhs(), add.getRhs()}, std::pair{add.getRhs(), add.getLhs()}}) {
    if (!matchPattern(one, m_OneFloat()))
      continue;
    if (auto exp = other.getDefiningOp<math::ExpOp>())
      if (auto neg = exp.getOperand().getDefiningOp<arith::NegFOp>())
        return neg.getOperand();
  }
  return {};
}

/// x where `div` is x / (1 + exp(-x)) or 1 / (1 + exp(-x)) in f32, else null.
static Value logisticDivisionArgument(arith::DivFOp div) {
  if (!getElementTypeOrSelf(div.getType()).isF32())
    return {};
  Value x = logisticArgument(div.getRhs());
  return x && (div.getLhs() == x || matchPattern(div.getLhs(), m_OneFloat())) ? x : Value();
}

/// The sequence for one lane. `inRange`: the caller has checked |x| <= 80,
/// so d is in [1, 2^116] and n finite: no scaling, no non-finite case (the
/// arithmetic the full form does there, its scale being 1).
static Value quotientScalar(OpBuilder &b, Location loc, Value n, Value d, bool inRange) {
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

static Value quotient(OpBuilder &b, Location loc, Value n, Value d, bool inRange) {
  return perLane(b, loc, {n, d}, [inRange](OpBuilder &b, Location loc, ValueRange v) {
    return quotientScalar(b, loc, v[0], v[1], inRange);
  });
}

/// A lone division (all of a thread's values of it in one vector): the
/// in-range sequence for every lane of a group of `guardValues` lanes (0:
/// all) when each |x| of the group is at most 80 (NaN is not), else IEEE
/// division for all of them; one branch per thread and group, not per value.
static Value guardedQuotient(OpBuilder &b, Location loc, arith::DivFOp div, Value x, int64_t guardValues) {
  Value n = div.getLhs(), d = div.getRhs();
  auto vec = dyn_cast<VectorType>(div.getType());
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

void lowerLogisticDivisions(Operation *root, const LogisticDivisionOptions &options) {
  // Divisors that two quotients share (x / d and 1 / d: the SwiGLU
  // backward's activation and sigmoid) take the full sequence: its scaling,
  // reciprocal and Newton step serve both, and S17 run 3 measured the
  // backward 135.4 -> 131.7 us, with clamp 166.8 -> 157.3. A lone division
  // takes the guarded one: the full sequence there is 4 instructions more
  // than div.rn.f32's fast path, and the forward kernels, issue-bound, were
  // slower with it (S17 run 3: per-token 190.0 -> 223.8 us, per-channel
  // b = 32 364.8 -> 376.7). The guarded form against div.rn.f32, S18 run 1
  // (H200, two "on" passes around an "off" one): b = 32 368.4 -> 326.4,
  // 325.4 us (128 registers, 4 blocks per SM, against 136); per-token
  // weights 191.1 -> 190.5, 190.6; transposed b = 128 unchanged; per-token
  // count 240.4 -> 246.9 (78 registers against 64). A check per 8 or 2
  // values (TK_LOGISTIC_GUARD) was slower: b = 32 338.1, 358.3. The count
  // kernel, counting before the SwiGLU since (64 registers either way), was
  // still slower with the guard (S18 run 2: 232.3 -> 241.4, 240.5 us), so
  // it keeps div.rn.f32 for lone divisions (KernelBuilder::
  // ieeeLoneDivisions, tile.ieee_lone_divisions).
  // Grouped by x: two maps of one tile each compute 1 + exp(-x) for the same
  // x, which CSE merges after this pass.
  llvm::MapVector<Value, SmallVector<arith::DivFOp>> byArgument;
  root->walk([&](arith::DivFOp div) {
    if (Value x = logisticDivisionArgument(div))
      byArgument[x].push_back(div);
  });
  for (auto &[x, divs] : byArgument)
    for (arith::DivFOp div : divs) {
      if (divs.size() < 2 && !options.loneDivisions)
        continue;
      OpBuilder b(div);
      Value q = divs.size() >= 2 ? quotient(b, div.getLoc(), div.getLhs(), div.getRhs(), /*inRange=*/false)
                                 : guardedQuotient(b, div.getLoc(), div, x, options.guardValues);
      div.getResult().replaceAllUsesWith(q);
      div.erase();
    }
}

} // namespace tk::compiler
