//===- CpuPipeline.cpp ----------------------------------------------------===//
#include "tk/compiler/Target/CpuPipeline.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

namespace tk::compiler {

void buildCpuPipeline(mlir::OpPassManager &pm) {
  // The pipelined schedule (its versions, slots and guards) runs on the CPU
  // too, sequentially: CPU tests check its indexing against the plain loop.
  pm.addPass(tile::createTilePipelineCopies());
  pm.addPass(tile::createTileLowerToCPU());
  pm.addPass(tile::createTileLogisticQuotients()); // IEEE division, math.exp as the C library's expf
  pm.addPass(tile::createTileApproximateMath());  // log1p and log as on the GPU
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  // bf16 conversions as integer arithmetic (round to nearest even, NaN kept
  // quiet), not fptrunc / fpext: LLVM would call __truncsfbf2 on hosts
  // without native bf16 conversion, which GCC 12's runtime does not have,
  // and native conversions flush denormals where the GPU's cvt.rn does not.
  // Arithmetic on bf16 values (a max, an absolute value) first becomes f32
  // arithmetic between explicit conversions: LLVM would promote it the same
  // way, but with its own fptrunc (the helper again).
  pm.addPass(mlir::math::createMathExtendToSupportedTypes());
  mlir::arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(mlir::arith::createArithEmulateUnsupportedFloats(emulate));
  mlir::arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(mlir::arith::createArithExpandOpsPass(expand));
  pm.addPass(mlir::createSCFToControlFlowPass());
  pm.addPass(mlir::memref::createExpandStridedMetadataPass());
  pm.addPass(mlir::createLowerAffinePass()); // the offsets of subviews (pipeline buffer versions)
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(mlir::createConvertMathToLLVMPass()); // exp -> expf, fma -> fmaf (one rounding)
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
  pm.addPass(createLoadAndStoreBf16AsBitsPass());
}

} // namespace tk::compiler
