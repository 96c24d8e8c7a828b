//===- CpuPipeline.h - tile IR -> LLVM dialect for the host CPU -----------===//
#pragma once

#include "mlir/Pass/PassManager.h"

namespace tk::compiler {

/// tile-lower-to-cpu, then upstream conversions (scf -> cf, memref, arith,
/// func -> LLVM dialect); the result is JIT-compiled by MLIR's ExecutionEngine.
void buildCpuPipeline(mlir::OpPassManager &pm);

/// The pipeline's last step: bf16 loads and stores of the LLVM dialect as
/// i16 ones (Bf16AsBits.cpp), so no bf16 value reaches a host without bf16
/// support (LLVM would call __truncsfbf2).
std::unique_ptr<mlir::Pass> createLoadAndStoreBf16AsBitsPass();

} // namespace tk::compiler
