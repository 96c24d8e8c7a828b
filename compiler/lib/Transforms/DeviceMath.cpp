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
//===----------------------------------------------------------------------===//
#include "tk/compiler/Conversion/ScalarMath.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cstring>

namespace tk::tile {
#define GEN_PASS_DEF_TILEDEVICEMATH
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

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

static Value emitDeviceSqrt(OpBuilder &b, Location loc, Value x) {
  // llvm.intr.sqrt is illegal in the NVVM conversion (it wants libdevice): the NVVM intrinsic.
  return perLane(b, loc, x, [](OpBuilder &b, Location loc, ValueRange v) {
    return intrinsic(b, loc, "llvm.nvvm.sqrt.rn.f", {v[0]});
  });
}

static Value emitDeviceExp(OpBuilder &b, Location loc, Value x) {
  return perLane(b, loc, x, [](OpBuilder &b, Location loc, ValueRange v) { return deviceExpScalar(b, loc, v[0]); });
}

} // namespace tk::compiler

namespace {

struct TileDeviceMath : public tk::tile::impl::TileDeviceMathBase<TileDeviceMath> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<math::ExpOp, math::FmaOp, math::SqrtOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Value result;
      if (auto fma = dyn_cast<math::FmaOp>(op)) { // one rounding, as fma.rn.f32 (not a libdevice call)
        result = LLVM::FMAOp::create(b, op->getLoc(), fma.getA(), fma.getB(), fma.getC());
      } else if (auto sqrt = dyn_cast<math::SqrtOp>(op)) { // sqrt.rn.f32, correctly rounded as the CPU's
        result = tk::compiler::emitDeviceSqrt(b, op->getLoc(), sqrt.getOperand());
      } else {
        if (!getElementTypeOrSelf(op->getResult(0).getType()).isF32()) {
          op->emitOpError() << "on the GPU only f32 exp is lowered (as CUDA's expf), got "
                            << op->getResult(0).getType();
          return signalPassFailure();
        }
        result = tk::compiler::emitDeviceExp(b, op->getLoc(), op->getOperand(0));
      }
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
  }
};

} // namespace
