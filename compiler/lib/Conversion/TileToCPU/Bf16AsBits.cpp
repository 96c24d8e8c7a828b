//===- Bf16AsBits.cpp - bf16 values cross control flow as their i16 bits --===//
//
// On a host without bf16 support LLVM holds a bf16 value in an f32 register:
// a phi or select of bf16 (a masked load's "in bounds ? load : 0") becomes
// f32, and the store after it a float truncation, a call to __truncsfbf2,
// which GCC 12's runtime lacks. The CPU lowering's scf.if and arith.select
// with bf16 results carry the bits instead (bitcasts on both sides, which
// cost nothing), and after the lowering to LLVM, bf16 loads and stores move
// i16: LLVM's instruction combiner would otherwise fold the bitcasts of a
// loaded value back into a bf16 phi.
//===----------------------------------------------------------------------===//
#include "CpuPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "tk/compiler/Target/CpuPipeline.h"

using namespace mlir;

namespace tk::compiler {

static Value toBits(OpBuilder &b, Location loc, Value v) {
  return arith::BitcastOp::create(b, loc, b.getI16Type(), v);
}

void carryBf16AsBits(ModuleOp module) {
  SmallVector<scf::IfOp> ifs;
  SmallVector<arith::SelectOp> selects;
  module.walk([&](Operation *op) {
    auto hasBf16 = [](TypeRange types) { return llvm::any_of(types, [](Type t) { return t.isBF16(); }); };
    if (auto i = dyn_cast<scf::IfOp>(op); i && hasBf16(i.getResultTypes()))
      ifs.push_back(i);
    else if (auto s = dyn_cast<arith::SelectOp>(op); s && s.getType().isBF16())
      selects.push_back(s);
  });
  for (scf::IfOp op : ifs) {
    OpBuilder b(op);
    SmallVector<Type> types;
    for (Type t : op.getResultTypes())
      types.push_back(t.isBF16() ? b.getI16Type() : t);
    for (Region *region : {&op.getThenRegion(), &op.getElseRegion()}) {
      if (region->empty())
        continue;
      auto yield = cast<scf::YieldOp>(region->front().getTerminator());
      OpBuilder yb(yield);
      for (OpOperand &v : yield->getOpOperands())
        if (v.get().getType().isBF16())
          v.set(toBits(yb, yield.getLoc(), v.get()));
    }
    auto bits = scf::IfOp::create(b, op.getLoc(), types, op.getCondition(), /*withElseRegion=*/false);
    bits.getThenRegion().takeBody(op.getThenRegion());
    bits.getElseRegion().takeBody(op.getElseRegion());
    b.setInsertionPointAfter(bits);
    for (auto [old, now] : llvm::zip(op.getResults(), bits.getResults()))
      old.replaceAllUsesWith(old.getType().isBF16()
                                 ? arith::BitcastOp::create(b, op.getLoc(), old.getType(), now).getResult()
                                 : now);
    op.erase();
  }
  for (arith::SelectOp op : selects) {
    OpBuilder b(op);
    Value bits = arith::SelectOp::create(b, op.getLoc(), op.getCondition(), toBits(b, op.getLoc(), op.getTrueValue()),
                                         toBits(b, op.getLoc(), op.getFalseValue()));
    op.replaceAllUsesWith(arith::BitcastOp::create(b, op.getLoc(), op.getType(), bits).getResult());
    op.erase();
  }
}

void loadAndStoreBf16AsBits(ModuleOp module) {
  SmallVector<LLVM::LoadOp> loads;
  SmallVector<LLVM::StoreOp> stores;
  module.walk([&](Operation *op) {
    if (auto l = dyn_cast<LLVM::LoadOp>(op); l && l.getType().isBF16())
      loads.push_back(l);
    else if (auto s = dyn_cast<LLVM::StoreOp>(op); s && s.getValue().getType().isBF16())
      stores.push_back(s);
  });
  for (LLVM::LoadOp op : loads) {
    OpBuilder b(op);
    auto bits = LLVM::LoadOp::create(b, op.getLoc(), b.getI16Type(), op.getAddr(), op.getAlignment().value_or(0),
                                     op.getVolatile_(), op.getNontemporal());
    op.replaceAllUsesWith(LLVM::BitcastOp::create(b, op.getLoc(), op.getType(), bits).getResult());
    op.erase();
  }
  for (LLVM::StoreOp op : stores) {
    OpBuilder b(op);
    Value bits = LLVM::BitcastOp::create(b, op.getLoc(), b.getI16Type(), op.getValue());
    LLVM::StoreOp::create(b, op.getLoc(), bits, op.getAddr(), op.getAlignment().value_or(0), op.getVolatile_(),
                          op.getNontemporal());
    op.erase();
  }
}

namespace {
struct LoadAndStoreBf16AsBits : PassWrapper<LoadAndStoreBf16AsBits, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LoadAndStoreBf16AsBits)
  StringRef getArgument() const final { return "tile-cpu-bf16-memory-as-bits"; }
  void runOnOperation() override { loadAndStoreBf16AsBits(getOperation()); }
};
} // namespace

std::unique_ptr<Pass> createLoadAndStoreBf16AsBitsPass() { return std::make_unique<LoadAndStoreBf16AsBits>(); }

} // namespace tk::compiler
