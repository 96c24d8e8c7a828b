//===- BuiltKernel.h - a kernel in tile IR and its launch contract --------===//
//
// What a DSL program produces and the runtime compiles and launches: the
// runtime sees this and the plain signature, never the DSL's builder.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/dsl/Signature.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace tk::compiler {

struct BuiltKernel {
  mlir::OwningOpRef<mlir::ModuleOp> module; ///< one tile.kernel
  dsl::KernelSignature signature;
};

/// A hash of `module`'s IR as printed (SHA-256, hex): two kernels that print
/// alike compile alike. The runtime's cache keys start from it.
std::string contentHash(mlir::ModuleOp module);

} // namespace tk::compiler
