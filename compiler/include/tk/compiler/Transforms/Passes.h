//===- Passes.h - tile compiler passes ------------------------------------===//
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tk::tile {

/// A kernel gpu.func's attribute: its schedule's dependent_launch, 1 or 2
/// (tile-lower-to-gpu sets it, tile-dependent-launch acts on it).
inline constexpr llvm::StringLiteral kDependentLaunchMark = "tk.dependent_launch";

#define GEN_PASS_DECL
#include "tk/compiler/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tk/compiler/Transforms/Passes.h.inc"

} // namespace tk::tile
