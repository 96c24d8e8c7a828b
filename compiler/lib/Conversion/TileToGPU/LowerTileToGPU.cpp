//===- LowerTileToGPU.cpp - tile kernels to gpu.func with per-thread code -===//
//
// Each kernel is outlined into a gpu.func (KernelOutline.cpp), then its tile
// ops are converted by MLIR's dialect conversion driver with one pattern per
// op (Patterns.h; one file per family), in program order.
//===----------------------------------------------------------------------===//
#include "KernelOutline.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/UB/IR/UBOps.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILELOWERTOGPU
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk;
using namespace tk::tile;

namespace tk::compiler {

KernelState &KernelStates::add(gpu::GPUFuncOp func, Location loc) {
  auto &slot = states_[func];
  slot = std::make_unique<KernelState>(func, loc);
  return *slot;
}

KernelState &KernelStates::of(Operation *op) const {
  auto func = isa<gpu::GPUFuncOp>(op) ? cast<gpu::GPUFuncOp>(op) : op->getParentOfType<gpu::GPUFuncOp>();
  return *states_.find(func)->second;
}

bool KernelStates::anyFailed() const {
  return llvm::any_of(states_, [](auto &entry) { return entry.second->failed; });
}

FragmentTypeConverter::FragmentTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](MemRefType t) { return gpuMemRefType(t); });
  addConversion([](FragmentType t) -> std::optional<Type> {
    std::optional<int64_t> slots = slotsPerThread(t);
    if (!slots)
      return std::nullopt;
    return VectorType::get({*slots}, storageType(t.getElementType()));
  });
}

} // namespace tk::compiler

namespace {

struct TileLowerToGPU : public tk::tile::impl::TileLowerToGPUBase<TileLowerToGPU> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    if (kernels.empty())
      return;
    if (swizzleBytes != 1 && swizzleBytes != 2 && swizzleBytes != 4) {
      module.emitError() << "tile-lower-to-gpu: swizzle-bytes must be 1, 2 or 4, got " << int64_t(swizzleBytes);
      return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(module.getContext()));
    compiler::OutlineOptions options;
    options.fp8Hardware = fp8Hardware;
    options.remarks = remarks;
    options.swizzle = swizzle;
    options.swizzleBytes = swizzleBytes;
    options.rereadThreadIndex = rereadThreadIndex;
    options.minBlocksPerSm = minBlocksPerSm;
    options.readonlyLoads = readonlyLoads;
    options.warpgroupMma = warpgroupMma;
    compiler::KernelStates states;
    SmallVector<gpu::GPUFuncOp> funcs;
    for (KernelOp kernel : kernels) {
      FailureOr<compiler::KernelState *> state = compiler::outlineKernel(kernel, states, options);
      if (failed(state))
        return signalPassFailure();
      funcs.push_back((*state)->func);
    }

    MLIRContext *ctx = &getContext();
    compiler::FragmentTypeConverter converter;
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    // Scalar math that the per-thread code keeps, for the passes after
    // (tile-logistic-quotients).
    target.addLegalOp<SiluOp, SigmoidOp>();
    target.markUnknownOpDynamicallyLegal([&](Operation *op) { return converter.isLegal(op); });
    // Versions of shared buffers: converted once each (their alignment
    // recorded, float8 as i8).
    target.addDynamicallyLegalOp<memref::SubViewOp>([&](memref::SubViewOp view) {
      return states.of(view).alignment.count(view.getResult()) != 0;
    });
    RewritePatternSet patterns(ctx);
    compiler::populateStructurePatterns(patterns, converter, states);
    compiler::populateMemoryPatterns(patterns, converter, states);
    compiler::populateIndexedPatterns(patterns, converter, states);
    compiler::populateComputePatterns(patterns, converter, states);
    compiler::populateLinePatterns(patterns, converter, states);
    compiler::populateExchangePatterns(patterns, converter, states);
    compiler::populateEncodingPatterns(patterns, converter, states);
    compiler::populateCoordinatePatterns(patterns, converter, states);
    // Loops that carry fragments carry each thread's slots (upstream's
    // structural conversion of scf.for and its yield).
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, target);
    FrozenRewritePatternSet frozen(std::move(patterns));
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    // A pattern that fails has reported why; the driver's "failed to
    // legalize" after it says nothing more.
    ScopedDiagnosticHandler quiet(ctx, [&](Diagnostic &diag) {
      return success(states.anyFailed() && StringRef(diag.str()).starts_with("failed to legalize"));
    });
    for (gpu::GPUFuncOp func : funcs) {
      if (failed(applyPartialConversion(func, target, frozen, config)))
        return signalPassFailure();
      compiler::eraseBackToBackBarriers(func);
    }
  }
};

} // namespace
