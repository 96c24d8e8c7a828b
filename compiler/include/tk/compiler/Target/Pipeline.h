//===- Pipeline.h - tile IR -> PTX, per target, in one place --------------===//
#pragma once

#include "tk/compiler/Target/CompileOptions.h"
#include "tk/compiler/Target/Targets.h"

#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace tk::compiler {

/// The whole pipeline for one target, as passes:
///   tile-assign-layouts -> tile-lower-to-gpu -> canonicalize, cse
///   -> upstream gpu-lower-to-nvvm's passes (scf/vector/memref/arith -> LLVM +
///      NVVM, nvvm target attach, gpu-module-to-binary format=isa through LLVM
///      NVPTX), with tile-noalias-params before the binary (buildNvvmLowering).
struct CompileOptions;
void buildPipeline(mlir::OpPassManager &pm, const Target &target, bool remarks = false);
/// The same with the ablations of `options` applied (see CompileOptions::ablate).
void buildPipeline(mlir::OpPassManager &pm, const Target &target, const CompileOptions &options);

/// Upstream's buildLowerToNVVMPassPipeline, pass for pass (a unit test compares
/// the two), with tile-noalias-params after the kernels reach the LLVM
/// dialect when `noAliasParams`: upstream's builder has no place for it.
void buildNvvmLowering(mlir::OpPassManager &pm, const mlir::gpu::GPUToNVVMPipelineOptions &options, bool noAliasParams);

/// Runs the pipeline on `module` (consumed) and returns the PTX text, or an
/// error message holding the compiler's diagnostics. A kernel with dynamic
/// shared memory (tile-dynamic-shared-memory) gets a header line saying how
/// much, which travels with the PTX through the caches.
bool compileToPtx(mlir::ModuleOp module, const Target &target, const CompileOptions &options,
                  std::string &ptx, std::string &error);

} // namespace tk::compiler
