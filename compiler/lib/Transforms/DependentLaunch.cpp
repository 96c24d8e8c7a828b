//===- DependentLaunch.cpp - kernels that launch during their predecessor -===//
//
// An operator of several kernels hands data through memory in stream order;
// each kernel boundary costs the next grid's launch after the last block of
// the one before has ended. With programmatic dependent launch (sm_90+) the
// next grid is launched while the last wave still runs, and waits in place.
// Passes.td has the contract; the runtime launches a kernel with the
// attribute only where its PTX header names it (Launcher.cpp).
//===----------------------------------------------------------------------===//
#include "tk/compiler/Transforms/Passes.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEDEPENDENTLAUNCH
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;

namespace tk::compiler {
namespace {

struct TileDependentLaunchPass : tile::impl::TileDependentLaunchBase<TileDependentLaunchPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Attribute> kernels;
    module.walk([&](gpu::GPUFuncOp func) {
      // The mark only asks; the target decides. It never reaches LLVM.
      auto mark = dyn_cast_or_null<IntegerAttr>(func->removeAttr(tile::kDependentLaunchMark));
      const int64_t asked = every ? 1 : mark ? mark.getInt() : 0;
      if (!func.isKernel() || !supported || asked == 0)
        return;
      OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
      // 2: no signal; the kernel's end is one, block by block.
      if (asked == 1)
        NVVM::GriddepcontrolOp::create(b, func.getLoc(), NVVM::GridDepActionKind::launch_dependents);
      NVVM::GriddepcontrolOp::create(b, func.getLoc(), NVVM::GridDepActionKind::wait);
      kernels.push_back(func.getNameAttr());
    });
    if (!kernels.empty())
      module->setAttr("tk.dependent_launch", ArrayAttr::get(&getContext(), kernels));
  }
};

} // namespace
} // namespace tk::compiler
