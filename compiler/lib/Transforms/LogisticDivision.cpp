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
//   q0 = n' y, r = fma(-d', q0, n')     (the exact residual)
//   q  = fma(r, y, q0)                  (the correctly rounded quotient)
// q is NaN exactly where the operands are not both finite (n = +inf, d = 1;
// n = -inf or x < -88.7, d = inf; NaN): there n' y0 is the IEEE quotient
// (inf, NaN, or a zero of n's sign). The quotient's sign is n's (d > 0): the
// residual step turns n = -0 into +0, so the sign is copied back.
// The proof is by exhaustion: a GPU test runs every one of the 2^32 f32
// values of x through both quotients and compares them with div.rn.f32 bit
// for bit (tests/kernels/logistic_division_gpu_test.cpp). It matches only
// these two shapes (the numerator is the exponent's negated operand, or
// 1.0), the domain that test covers; any other division stays div.rn.f32.
// It is applied only where both quotients of one x are taken (the SwiGLU
// backward; lowerLogisticDivisions says why) and only for sm_90a, where the
// exhaustive check ran (Pipeline.cpp). TK_ABLATE=logistic-division keeps
// div.rn.f32 everywhere.
//===----------------------------------------------------------------------===//
#include "Distribute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
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

static bool isLogisticDivision(arith::DivFOp div) {
  if (!getElementTypeOrSelf(div.getType()).isF32())
    return false;
  Value x = logisticArgument(div.getRhs());
  return x && (div.getLhs() == x || matchPattern(div.getLhs(), m_OneFloat()));
}

static Value quotientScalar(OpBuilder &b, Location loc, Value n, Value d) {
  Shaped c(b, loc, d);
  auto f32 = [&](float v) { return c.f32(v); };
  auto mul = [&](Value x, Value y) { return arith::MulFOp::create(b, loc, x, y).getResult(); };
  auto fma = [&](Value x, Value y, Value z) { return LLVM::FMAOp::create(b, loc, x, y, z).getResult(); };
  Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, d, f32(0x1p64f));
  Value s = arith::SelectOp::create(b, loc, big, f32(0x1p-64f), f32(1.0f));
  Value ds = mul(d, s), ns = mul(n, s), negDs = arith::NegFOp::create(b, loc, ds);
  Value y0 = LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(), b.getStringAttr("llvm.nvvm.rcp.approx.ftz.f"),
                                           ValueRange{ds})
                 .getResult(0);
  Value y = fma(y0, fma(negDs, y0, f32(1.0f)), y0);
  Value q0 = mul(ns, y);
  Value q = fma(fma(negDs, q0, ns), y, q0);
  Value notFinite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, q, q);
  q = arith::SelectOp::create(b, loc, notFinite, mul(ns, y0), q);
  // n's sign on q's magnitude, as bits (llvm.intr.copysign would become a libdevice call)
  auto bits = [&](Value v) { return arith::BitcastOp::create(b, loc, b.getI32Type(), v).getResult(); };
  Value magnitude = arith::AndIOp::create(b, loc, bits(q), c.i32(0x7FFFFFFF));
  Value sign = arith::AndIOp::create(b, loc, bits(n), c.i32(int32_t(0x80000000u)));
  return arith::BitcastOp::create(b, loc, b.getF32Type(), arith::OrIOp::create(b, loc, magnitude, sign));
}

static Value quotient(OpBuilder &b, Location loc, Value n, Value d) {
  return perLane(b, loc, {n, d}, [](OpBuilder &b, Location loc, ValueRange v) { return quotientScalar(b, loc, v[0], v[1]); });
}

void lowerLogisticDivisions(Operation *root) {
  // Only divisors that two quotients share (x / d and 1 / d: the SwiGLU
  // backward's activation and sigmoid): there the sequence's scaling,
  // reciprocal and Newton step serve both, and S17 run 3 measured the
  // backward 135.4 -> 131.7 us, with clamp 166.8 -> 157.3. Alone (SiLU in the
  // forward kernels) it is 4 instructions more than div.rn.f32's guarded
  // fast path, and the forward kernels, issue-bound, were slower: per-token
  // 190.0 -> 223.8 us, per-channel b = 32 364.8 -> 376.7.
  // Grouped by x: two maps of one tile each compute 1 + exp(-x) for the same
  // x, which CSE merges after this pass.
  llvm::MapVector<Value, SmallVector<arith::DivFOp>> byArgument;
  root->walk([&](arith::DivFOp div) {
    if (isLogisticDivision(div))
      byArgument[logisticArgument(div.getRhs())].push_back(div);
  });
  for (auto &[x, divs] : byArgument) {
    if (divs.size() < 2)
      continue;
    for (arith::DivFOp div : divs) {
      OpBuilder b(div);
      div.getResult().replaceAllUsesWith(quotient(b, div.getLoc(), div.getLhs(), div.getRhs()));
      div.erase();
    }
  }
}

} // namespace tk::compiler
