//===- program.h - what a kernel header needs of the DSL ------------------===//
//
// A kernel's header declares its config and its DSL program's build
// function. Built with TK_RUNTIME_ONLY (libtk_rt), that declaration needs
// only the types' names, so the operators' host code compiles without
// MLIR's headers; otherwise the whole DSL, as the programs use it.
//===----------------------------------------------------------------------===//
#pragma once

#ifdef TK_RUNTIME_ONLY
#include "tk/dsl/DType.h"
#include "tk/dsl/Signature.h"

namespace mlir {
class MLIRContext;
}
namespace tk::compiler {
struct BuiltKernel;
}
namespace tk::dsl {
using BuiltKernel = compiler::BuiltKernel;
}
#else
#include "tk/dsl/KernelBuilder.h"
#endif
