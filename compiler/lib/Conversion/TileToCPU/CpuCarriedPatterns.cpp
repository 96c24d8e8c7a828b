//===- CpuCarriedPatterns.cpp - fragments carried by scf.for, scalars scf.if reads, on the CPU ===//
//
// On the CPU a fragment is a buffer that its op writes each time it runs. A
// loop that yielded that buffer itself would hand the next iteration a
// block argument that the same op overwrites while the body may still read
// it (`acc` after `acc + x` in the body), so each carried value is copied
// into a buffer of its own at the end of the body.
//===----------------------------------------------------------------------===//
#include "CpuPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

struct CarriedYieldPattern : OpConversionPattern<scf::YieldOp> {
  CarriedYieldPattern(const TypeConverter &converter, MLIRContext *ctx, CpuKernelStates &states)
      : OpConversionPattern(converter, ctx, /*benefit=*/2), states(states) {}

  LogicalResult matchAndRewrite(scf::YieldOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    if (!isa<scf::ForOp>(op->getParentOp()) ||
        llvm::none_of(op.getOperandTypes(), [](Type t) { return isa<FragmentType>(t); }))
      return failure();
    CpuEmitter emit(rw, states.of(op));
    SmallVector<Value> values;
    for (auto [original, value] : llvm::zip(op.getOperands(), adaptor.getResults())) {
      if (!isa<FragmentType>(original.getType())) {
        values.push_back(value);
        continue;
      }
      Value own = emit.buffer(cast<MemRefType>(value.getType()));
      memref::CopyOp::create(rw, op.getLoc(), value, own);
      values.push_back(own);
    }
    rw.replaceOpWithNewOp<scf::YieldOp>(op, values);
    return success();
  }

  CpuKernelStates &states;
};

/// A fragment is a buffer of its whole shape: its only element.
struct ToScalarPattern : OpConversionPattern<ToScalarOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ToScalarOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Value zero = arith::ConstantIndexOp::create(rw, op.getLoc(), 0);
    SmallVector<Value> at(op.getInput().getType().getRank(), zero);
    Value v = memref::LoadOp::create(rw, op.getLoc(), adaptor.getInput(), at);
    rw.replaceOp(op, v);
    return success();
  }
};

} // namespace

void populateCpuCarriedPatterns(RewritePatternSet &set, const TypeConverter &converter, CpuKernelStates &states) {
  set.add<CarriedYieldPattern>(converter, set.getContext(), states);
  set.add<ToScalarPattern>(converter, set.getContext());
}

} // namespace tk::compiler
