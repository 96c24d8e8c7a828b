//===- DeviceMath.cpp - math.exp as CUDA's device expf, math.fma as fma.rn -===//
//
// SwiGLU outputs are compared bit for bit with oracles that call CUDA's
// accurate `expf` (spec quant.md 4.16-4.18), so on the GPU math.exp on f32
// must be that function, instruction for instruction, not libdevice's call
// (which tk does not link) and not the one-instruction `ex2.approx` version
// (__expf), which differs in about 70% of inputs.
//
// The algorithm (what nvcc emits for expf without fast-math):
//   t  = saturate(x * (log2(e) / 252) + 0.5)       in [0, 1]
//   k  = fma.rm(t, 252, 2^23 + 2^22 + 1)           the integer part n + 127
//                                                   sits in k's low mantissa bits
//   n  = k - (2^23 + 2^22 + 127)                    round(x log2 e), in [-126, 126]
//   f  = (x * log2e_hi - n) + x * log2e_lo         two fmas: the reduced argument
//   e^x = ex2.approx.ftz(f) * bits_as_f32(bits(k) << 23)
// saturate is written as maxnum/minnum against 0 and 1 (the same values,
// NaN included), which the NVPTX backend selects as max/min.
// math.fma becomes llvm.intr.fma (one rounding), which the generic GPU
// conversion would otherwise turn into a libdevice call.
//
// With `checkedDivision` (TK_DIVISION=checked, an experiment), arith.divf of
// f32 per-thread vectors gives div.rn.f32's bits without one slow-path branch
// per element. ptxas expands each div.rn.f32 into a reciprocal, four fmas, a
// range check (FCHK) and a branch around a call to a slow-path subroutine;
// in the SwiGLU kernels (l / (1 + exp(-l)), 32 per thread) the SASS shows
// the 32 divisions one after another between those branches, where the
// exponentials before them are interleaved. Here the same fast sequence runs on every
// element in one block, and one check for the whole vector (every |a| zero
// or in [2^-60, 2^60], every |b| in [2^-60, 2^60], none NaN: operands for
// which ptxas's check passes and its fast result is the IEEE quotient)
// chooses it; otherwise the vector is divided again by div.rn.f32 in a cold
// loop over its elements. The fast sequence gives +0 for a zero
// dividend; the quotient's sign bit is set from a and b, which changes
// nothing else (a nonzero quotient already has that sign). Static, S14:
// 162 registers on the transposed SwiGLU per-channel kernel against 150
// (3 CTAs per SM either way, which its shared memory also caps); not timed.
//===----------------------------------------------------------------------===//
#include "Distribute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cstring>

using namespace mlir;

namespace tk::compiler {

static Value f32Constant(OpBuilder &b, Location loc, uint32_t bits) {
  float v;
  static_assert(sizeof v == sizeof bits);
  std::memcpy(&v, &bits, sizeof v);
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

static Value intrinsic(OpBuilder &b, Location loc, StringRef name, ValueRange args) {
  return LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(), b.getStringAttr(name), args).getResult(0);
}

static Value deviceExpScalar(OpBuilder &b, Location loc, Value x) {
  Value half = f32Constant(b, loc, 0x3F000000), zero = f32Constant(b, loc, 0),
        one = f32Constant(b, loc, 0x3F800000);
  Value t = LLVM::FMAOp::create(b, loc, x, f32Constant(b, loc, 0x3BBB989D), half);
  t = arith::MinNumFOp::create(b, loc, arith::MaxNumFOp::create(b, loc, t, zero), one);
  Value k = intrinsic(b, loc, "llvm.nvvm.fma.rm.f", {t, f32Constant(b, loc, 0x437C0000), f32Constant(b, loc, 0x4B400001)});
  Value n = arith::AddFOp::create(b, loc, k, f32Constant(b, loc, 0xCB40007F));
  Value f = LLVM::FMAOp::create(b, loc, x, f32Constant(b, loc, 0x3FB8AA3B), arith::NegFOp::create(b, loc, n));
  f = LLVM::FMAOp::create(b, loc, x, f32Constant(b, loc, 0x32A57060), f);
  Value kBits = arith::BitcastOp::create(b, loc, b.getI32Type(), k);
  Value scaleBits = arith::ShLIOp::create(b, loc, kBits, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(23)));
  Value scale = arith::BitcastOp::create(b, loc, b.getF32Type(), scaleBits);
  Value p = intrinsic(b, loc, "llvm.nvvm.ex2.approx.ftz.f32", {f});
  return arith::MulFOp::create(b, loc, p, scale);
}

Value emitDeviceExp(OpBuilder &b, Location loc, Value x) {
  auto vec = dyn_cast<VectorType>(x.getType());
  if (!vec)
    return deviceExpScalar(b, loc, x);
  SmallVector<Value> lanes;
  for (int64_t i = 0; i < vec.getNumElements(); ++i)
    lanes.push_back(deviceExpScalar(b, loc, vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{i})));
  return vector::FromElementsOp::create(b, loc, vec, lanes);
}

/// a / b for f32 vectors: div.rn.f32's fast sequence with one range check
/// for the whole vector (see the file comment).
static Value emitVectorDivision(OpBuilder &b, Location loc, Value a, Value d) {
  auto vt = cast<VectorType>(a.getType());
  const int64_t n = vt.getNumElements();
  Shaped sh(b, loc, a);
  Type iv = sh.of(b.getI32Type());
  auto splatI = [&](uint32_t v) { return sh.i32(int32_t(v)); };
  // The fast sequence, as ptxas emits it for div.rn.f32 on sm_80, sm_90 and
  // sm_100: r ~ 1/d, refined once; q = a r, corrected once by the exact
  // remainder a - d q.
  SmallVector<Value> rcp;
  for (int64_t i = 0; i < n; ++i)
    rcp.push_back(intrinsic(b, loc, "llvm.nvvm.rcp.approx.ftz.f",
                            {vector::ExtractOp::create(b, loc, d, ArrayRef<int64_t>{i})}));
  Value r0 = vector::FromElementsOp::create(b, loc, vt, rcp);
  Value negD = arith::NegFOp::create(b, loc, d);
  Value e = LLVM::FMAOp::create(b, loc, negD, r0, sh.f32(1.0f));
  Value r1 = LLVM::FMAOp::create(b, loc, r0, e, r0);
  Value q0 = LLVM::FMAOp::create(b, loc, a, r1, sh.f32(0.0f));
  Value rem = LLVM::FMAOp::create(b, loc, negD, q0, a);
  Value q1 = LLVM::FMAOp::create(b, loc, r1, rem, q0);
  Value aBits = arith::BitcastOp::create(b, loc, iv, a), dBits = arith::BitcastOp::create(b, loc, iv, d);
  Value sign = arith::AndIOp::create(b, loc, arith::XOrIOp::create(b, loc, aBits, dBits), splatI(0x80000000u));
  Value fast = arith::BitcastOp::create(
      b, loc, vt, arith::OrIOp::create(b, loc, arith::BitcastOp::create(b, loc, iv, q1), sign));
  // The check, on the bits: for magnitudes (sign cleared) the unsigned
  // order is the float order, NaN above infinity. A zero dividend passes:
  // 2 bits(a) - 2 wraps to the top.
  Value absA = arith::AndIOp::create(b, loc, aBits, splatI(0x7FFFFFFFu));
  Value absD = arith::AndIOp::create(b, loc, dBits, splatI(0x7FFFFFFFu));
  auto across = [&](vector::CombiningKind kind, Value v) { return vector::ReductionOp::create(b, loc, kind, v); };
  Value dMin = across(vector::CombiningKind::MINUI, absD);
  Value largest = across(vector::CombiningKind::MAXUI, arith::MaxUIOp::create(b, loc, absA, absD));
  Value shifted = arith::AddIOp::create(b, loc, arith::ShLIOp::create(b, loc, aBits, splatI(1)), splatI(0xFFFFFFFEu));
  Value aMin = across(vector::CombiningKind::MINUI, shifted);
  auto i32 = [&](uint32_t v) { return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v))); };
  auto cmp = [&](arith::CmpIPredicate p, Value x, uint32_t y) { return arith::CmpIOp::create(b, loc, p, x, i32(y)); };
  const uint32_t low = 0x21800000u, high = 0x5D800000u; // 2^-60, 2^60
  Value ok = arith::AndIOp::create(
      b, loc, arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::uge, dMin, low), cmp(arith::CmpIPredicate::ule, largest, high)),
      cmp(arith::CmpIPredicate::uge, aMin, 2 * low - 2));
  auto branch = scf::IfOp::create(b, loc, TypeRange{vt}, ok, /*withElseRegion=*/true);
  OpBuilder then = branch.getThenBodyBuilder();
  scf::YieldOp::create(then, loc, fast);
  // The cold branch divides one element at a time in a loop that stays a
  // loop (its trip count is opaque to LLVM, which would otherwise unroll it
  // back into n call sites; it still unrolls it by 4 with a remainder), the
  // operands and quotients in thread-local arrays: few call sites, few live
  // registers.
  OpBuilder other = branch.getElseBodyBuilder();
  auto buffer = MemRefType::get({n}, b.getF32Type());
  Value aBuf = memref::AllocaOp::create(other, loc, buffer), dBuf = memref::AllocaOp::create(other, loc, buffer),
        qBuf = memref::AllocaOp::create(other, loc, buffer);
  Value zero = arith::ConstantIndexOp::create(other, loc, 0), one = arith::ConstantIndexOp::create(other, loc, 1);
  vector::StoreOp::create(other, loc, a, aBuf, ValueRange{zero});
  vector::StoreOp::create(other, loc, d, dBuf, ValueRange{zero});
  Value count = LLVM::InlineAsmOp::create(
                    other, loc, other.getI32Type(), ValueRange{}, other.getStringAttr("mov.u32 $0, " + std::to_string(n) + ";"),
                    other.getStringAttr("=r"), /*has_side_effects=*/UnitAttr(), /*is_align_stack=*/UnitAttr(),
                    LLVM::TailCallKindAttr::get(other.getContext(), LLVM::TailCallKind::None),
                    /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr())
                    .getResult(0);
  Value end = arith::IndexCastUIOp::create(other, loc, other.getIndexType(), count);
  auto loop = scf::ForOp::create(other, loc, zero, end, one);
  {
    OpBuilder body = OpBuilder::atBlockBegin(loop.getBody());
    Value i = loop.getInductionVar();
    Value x = memref::LoadOp::create(body, loc, aBuf, ValueRange{i}), y = memref::LoadOp::create(body, loc, dBuf, ValueRange{i});
    memref::StoreOp::create(body, loc, arith::DivFOp::create(body, loc, x, y), qBuf, ValueRange{i});
  }
  scf::YieldOp::create(other, loc, vector::LoadOp::create(other, loc, vt, qBuf, ValueRange{zero}).getResult());
  return branch.getResult(0);
}

LogicalResult lowerDeviceMath(Operation *root, bool checkedDivision) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<math::ExpOp, math::FmaOp>(op))
      ops.push_back(op);
    if (auto div = dyn_cast<arith::DivFOp>(op); div && checkedDivision) {
      auto vt = dyn_cast<VectorType>(div.getType());
      if (vt && vt.getElementType().isF32() && vt.getNumElements() >= 2)
        ops.push_back(op);
    }
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Value result;
    if (auto div = dyn_cast<arith::DivFOp>(op)) {
      result = emitVectorDivision(b, op->getLoc(), div.getLhs(), div.getRhs());
    } else if (auto fma = dyn_cast<math::FmaOp>(op)) { // one rounding, as fma.rn.f32 (not a libdevice call)
      result = LLVM::FMAOp::create(b, op->getLoc(), fma.getA(), fma.getB(), fma.getC());
    } else {
      if (!getElementTypeOrSelf(op->getResult(0).getType()).isF32())
        return op->emitOpError() << "on the GPU only f32 exp is lowered (as CUDA's expf), got "
                                 << op->getResult(0).getType();
      result = emitDeviceExp(b, op->getLoc(), op->getOperand(0));
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
  return success();
}

} // namespace tk::compiler
