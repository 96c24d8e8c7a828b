//===- Registration.cpp ---------------------------------------------------===//
#include "tk/compiler/Registration.h"

#include <cstdlib>
#include "tk/compiler/Dialect/Tile/ScfLayouts.h"
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Target/CpuPipeline.h"
#include "tk/compiler/Target/Pipeline.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

namespace tk::compiler {

void registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<tile::TileDialect, mlir::arith::ArithDialect, mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::memref::MemRefDialect, mlir::vector::VectorDialect, mlir::gpu::GPUDialect,
                  mlir::NVVM::NVVMDialect, mlir::LLVM::LLVMDialect, mlir::func::FuncDialect,
                  mlir::cf::ControlFlowDialect, mlir::index::IndexDialect, mlir::affine::AffineDialect,
                  mlir::nvgpu::NVGPUDialect, mlir::ub::UBDialect>();
  tile::registerScfLayoutModels(registry);
  mlir::arith::registerConvertArithToLLVMInterface(registry);
  mlir::cf::registerConvertControlFlowToLLVMInterface(registry);
  mlir::registerConvertFuncToLLVMInterface(registry);
  mlir::index::registerConvertIndexToLLVMInterface(registry);
  mlir::registerConvertMathToLLVMInterface(registry);
  mlir::registerConvertMemRefToLLVMInterface(registry);
  mlir::vector::registerConvertVectorToLLVMInterface(registry);
  mlir::registerConvertNVVMToLLVMInterface(registry);
  mlir::NVVM::registerConvertGpuToNVVMInterface(registry);
  mlir::gpu::registerConvertGpuToLLVMInterface(registry);
  mlir::ub::registerConvertUBToLLVMInterface(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
}

struct PtxPipelineOptions : public mlir::PassPipelineOptions<PtxPipelineOptions> {
  Option<std::string> target{*this, "target", llvm::cl::desc("sm_80, sm_90a or sm_100a"),
                              llvm::cl::init("sm_90a")};
  Option<std::string> copyEngine{*this, "copy-engine", llvm::cl::desc("cp.async or bulk (sm_90a+)"),
                                 llvm::cl::init("cp.async")};
  Option<int64_t> logisticGuard{*this, "logistic-guard",
                                llvm::cl::desc("values per range check of a lone logistic division (0: all)"),
                                llvm::cl::init(0)};
  Option<int64_t> swizzleBytes{*this, "swizzle-bytes",
                               llvm::cl::desc("the smallest element size (1, 2 or 4 bytes) whose transposes are "
                                              "swizzled (0: the default, 1)"),
                               llvm::cl::init(0)};
  Option<bool> readonlyLoads{
      *this, "readonly-loads",
      llvm::cl::desc("every kernel's read-only tensors as noalias, as a schedule's readonly_loads"),
      llvm::cl::init(false)};
  Option<bool> dependentLaunch{
      *this, "dependent-launch",
      llvm::cl::desc("programmatic dependent launch on sm_90+ for every kernel, whatever its schedule"),
      llvm::cl::init(false)};
  ListOption<std::string> ablate{*this, "ablate",
                                 llvm::cl::desc("passes switched off, as TK_ABLATE names them (e.g. logistic-division)")};
};

void registerPasses() {
  tile::registerTilePasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::PassPipelineRegistration<PtxPipelineOptions>(
      "tile-to-ptx", "The whole tk pipeline for one target: tile IR to a gpu.binary holding PTX",
      [](mlir::OpPassManager &pm, const PtxPipelineOptions &options) {
        std::optional<Target> target = findTarget(options.target);
        CompileOptions compile;
        compile.copyEngine = options.copyEngine;
        compile.ablate.assign(options.ablate.begin(), options.ablate.end());
        compile.logisticGuard = options.logisticGuard;
        compile.swizzleBytes = options.swizzleBytes;
        compile.readonlyLoads = options.readonlyLoads;
        compile.dependentLaunch = options.dependentLaunch;
        if (!target) {
          llvm::errs() << "tile-to-ptx: unknown target '" << options.target << "' (sm_80, sm_90a or sm_100a)\n";
          std::exit(1);
        }
        // The options' problems, named as the TK_ variables that set them in tk.
        if (std::string problem = compile.problem(*target); !problem.empty()) {
          llvm::errs() << "tile-to-ptx: " << problem << "\n";
          std::exit(1);
        }
        buildPipeline(pm, *target, compile);
      });
  mlir::PassPipelineRegistration<>("tile-to-cpu-llvm",
                                   "The CPU path: tile IR to LLVM dialect loops for the ExecutionEngine",
                                   [](mlir::OpPassManager &pm) { buildCpuPipeline(pm); });
}

} // namespace tk::compiler
