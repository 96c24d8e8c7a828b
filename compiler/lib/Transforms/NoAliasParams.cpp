//===- NoAliasParams.cpp - kernels' pointer parameters as noalias ----------===//
//
// Without it LLVM must assume that any store may change what any load of
// an input reads: it cannot move loads above stores, and inputs load through
// ld.global instead of the read-only path (ld.global.nc). The pointers marked
// are those tile-lower-to-gpu made llvm.readonly (tensors the kernel never
// writes); the runtime's launch check (bindTensors) makes the claim true: no
// output of a launch shares memory with another of its tensors.
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
      // Read-only tensors only: outputs stay ordinary pointers, so that what threads of a block write and read
      // of one output around a barrier keeps its order. An unused pointer is a memref's allocated pointer:
      // leaving it unmarked keeps the claim about the one pointer through which the memory is read.
      for (BlockArgument arg : func.getArguments())
        if (isa<LLVM::LLVMPointerType>(arg.getType()) && !arg.use_empty() &&
            func.getArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getReadonlyAttrName()))
          func.setArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getNoAliasAttrName(),
                          UnitAttr::get(func.getContext()));
    });
  }
};

} // namespace
