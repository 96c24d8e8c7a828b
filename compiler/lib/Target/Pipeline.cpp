//===- Pipeline.cpp - the per-target pass pipeline ------------------------===//
#include "tk/compiler/Target/Pipeline.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

#include <algorithm>

namespace tk::compiler {

void buildNvvmLowering(mlir::OpPassManager &pm, const mlir::gpu::GPUToNVVMPipelineOptions &o, bool noAliasParams) {
  using namespace mlir;
  // Host and device code to the LLVM dialect, as upstream's.
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions attach;
  attach.triple = o.cubinTriple;
  attach.chip = o.cubinChip;
  attach.features = o.cubinFeatures;
  attach.optLevel = o.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertIndexToLLVMPassOptions index;
  index.indexBitwidth = o.indexBitWidth;
  pm.addPass(createConvertIndexToLLVMPass(index));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The kernels' GPU ops to NVVM.
  ConvertGpuOpsToNVVMOpsOptions gpu;
  gpu.useBarePtrCallConv = o.kernelUseBarePtrCallConv;
  gpu.indexBitwidth = o.indexBitWidth;
  gpu.allowPatternRollback = o.allowPatternRollback;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(gpu));
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  // tk's one step in the middle: the kernels are llvm.func now, their memrefs expanded into pointers.
  if (noAliasParams)
    pm.addPass(tile::createTileNoAliasParams());
  // Launches and the device code to PTX.
  GpuToLLVMConversionPassOptions host;
  host.hostBarePtrCallConv = o.hostUseBarePtrCallConv;
  host.kernelBarePtrCallConv = o.kernelUseBarePtrCallConv;
  pm.addPass(createGpuToLLVMConversionPass(host));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = o.cubinFormat;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void buildPipeline(mlir::OpPassManager &pm, const Target &target, bool remarks) {
  CompileOptions options;
  options.remarks = remarks;
  buildPipeline(pm, target, options);
}

void buildPipeline(mlir::OpPassManager &pm, const Target &target, const CompileOptions &options) {
  auto ablated = [&](const char *name) {
    return std::find(options.ablate.begin(), options.ablate.end(), name) != options.ablate.end();
  };
  tile::TilePipelineCopiesOptions pipelining;
  pipelining.maxStages = ablated("pipeline") ? 1 : 8;
  pipelining.bulk = options.copyEngine == "bulk";
  pm.addPass(tile::createTilePipelineCopies(pipelining));
  tile::TileAssignLayoutsOptions layouts;
  layouts.vectorBytes = ablated("vectorize") ? 4 : target.vectorBytes;
  layouts.infer = !ablated("layout-inference");
  pm.addPass(tile::createTileAssignLayouts(layouts));
  if (ablated("fusion"))
    pm.addPass(tile::createTileMaterializeIntermediates());
  tile::TileLowerToGPUOptions lower;
  lower.fp8Hardware = target.fp8Conversion && !ablated("fp8-hardware");
  lower.remarks = options.remarks;
  lower.minBlocksPerSm = options.minBlocksPerSm;
  lower.swizzle = !ablated("swizzle");
  if (options.swizzleBytes > 0)
    lower.swizzleBytes = options.swizzleBytes;
  lower.rereadThreadIndex = !ablated("loop-thread-index");
  lower.readonlyLoads = options.readonlyLoads;
  lower.warpgroupMma = target.warpgroupMma;
  pm.addPass(tile::createTileLowerToGPU(lower));
  tile::TileDynamicSharedMemoryOptions shared;
  shared.maxBytes = target.maxSharedBytes;
  shared.targetName = target.name;
  pm.addPass(tile::createTileDynamicSharedMemory(shared));
  tile::TileDependentLaunchOptions dependent;
  dependent.supported = target.computeCapability >= 90;
  dependent.every = options.dependentLaunch;
  pm.addPass(tile::createTileDependentLaunch(dependent));
  tile::TileLogisticQuotientsOptions quotients;
  quotients.multiplyAndCorrect = target.multiplyAndCorrectQuotients && !ablated("logistic-division");
  quotients.guardValues = options.logisticGuard;
  pm.addPass(tile::createTileLogisticQuotients(quotients));
  pm.addPass(tile::createTileApproximateMath());
  pm.addPass(tile::createTileDeviceMath());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());

  mlir::gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = target.chip;
  nvvm.cubinFeatures = target.ptxFeatures;
  nvvm.cubinFormat = "isa"; // PTX text; the driver (or ptxas) assembles it
  nvvm.optLevel = 3;
  buildNvvmLowering(pm, nvvm, /*noAliasParams=*/true);
}

} // namespace tk::compiler
