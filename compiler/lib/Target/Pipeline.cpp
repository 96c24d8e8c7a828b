//===- Pipeline.cpp - the per-target pass pipeline ------------------------===//
#include "tk/compiler/Target/Pipeline.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Transforms/Passes.h"

#include <algorithm>

namespace tk::compiler {

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
  pm.addPass(tile::createTileLowerToGPU(lower));
  tile::TileDynamicSharedMemoryOptions shared;
  shared.maxBytes = target.maxSharedBytes;
  shared.targetName = target.name;
  pm.addPass(tile::createTileDynamicSharedMemory(shared));
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
  mlir::gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
}

} // namespace tk::compiler
