//===- NoAliasParams.cpp - kernels' pointer parameters as noalias ----------===//
//
// Without it LLVM must assume that any store may change what any load of
// another tensor reads: it cannot move loads above stores, and loads of input
// tensors stay ld.global instead of the read-only path (ld.global.nc). The
// runtime's launch check (bindTensors) makes the claim true: no output of a
// launch shares memory with another of its tensors.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Transforms/Passes.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILENOALIASPARAMS
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;

namespace {

struct NoAliasParams : tk::tile::impl::TileNoAliasParamsBase<NoAliasParams> {
  void runOnOperation() override {
    getOperation().walk([](LLVM::LLVMFuncOp func) {
      if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) || func.isExternal())
        return;
      // An unused pointer is a memref's allocated pointer (or a tensor the kernel never touches): leaving it unmarked
      // keeps the claim about the one pointer through which the memory is accessed.
      for (BlockArgument arg : func.getArguments())
        if (isa<LLVM::LLVMPointerType>(arg.getType()) && !arg.use_empty())
          func.setArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getNoAliasAttrName(),
                          UnitAttr::get(func.getContext()));
    });
  }
};

} // namespace
