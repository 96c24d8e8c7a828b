//===- CpuPipeline.h - tile IR -> LLVM dialect for the host CPU -----------===//
#pragma once

#include "mlir/Pass/PassManager.h"

namespace tk::compiler {

/// tile-lower-to-cpu, then upstream conversions (scf -> cf, memref, arith,
/// func -> LLVM dialect); the result is JIT-compiled by MLIR's ExecutionEngine.
void buildCpuPipeline(mlir::OpPassManager &pm);

} // namespace tk::compiler
