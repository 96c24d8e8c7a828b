//===- CpuCarriedPatterns.cpp - fragments carried by scf.for, scalars scf.if reads, on the CPU ===//
//
// On the CPU a fragment is a buffer that its op writes each time it runs. A
// loop that yielded that buffer itself would hand the next iteration a
// block argument that the same op overwrites while the body may still read
// it (`acc` after `acc + x` in the body), so each carried value is copied
// into a buffer of its own at the end of the body (a carried value yielded
// at another position through a staging buffer first: a swap loses nothing).
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
    auto loop = cast<scf::ForOp>(op->getParentOp());
    // A carried value yielded at another position (or through an scf.if, which may forward one) is the buffer
    // another position's copy overwrites: it is staged in a buffer of its own first, before any copy.
    SmallVector<Value> sources(adaptor.getResults());
    for (auto [i, original] : llvm::enumerate(op.getOperands())) {
      auto arg = dyn_cast<BlockArgument>(original);
      bool sameCarried = arg && arg.getOwner() == loop.getBody() && arg == loop.getRegionIterArgs()[i];
      if (!isa<FragmentType>(original.getType()) || sameCarried ||
          !(arg || isa_and_nonnull<scf::IfOp>(original.getDefiningOp())))
        continue;
      Value staged = emit.buffer(cast<MemRefType>(sources[i].getType()));
      memref::CopyOp::create(rw, op.getLoc(), sources[i], staged);
      sources[i] = staged;
    }
    SmallVector<Value> values;
    for (auto [original, value] : llvm::zip(op.getOperands(), sources)) {
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
