//===- Pipeline.cpp - the per-target pass pipeline ------------------------===//
#include "tk/compiler/Target/Pipeline.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Transforms/Passes.h"

namespace tk::compiler {

void buildPipeline(mlir::OpPassManager &pm, const Target &target, bool remarks) {
  tile::TileAssignLayoutsOptions layouts;
  layouts.vectorBytes = target.vectorBytes;
  pm.addPass(tile::createTileAssignLayouts(layouts));
  tile::TileLowerToGPUOptions lower;
  lower.fp8Hardware = target.fp8Conversion;
  lower.remarks = remarks;
  pm.addPass(tile::createTileLowerToGPU(lower));
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
