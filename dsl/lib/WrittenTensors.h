//===- WrittenTensors.h - a kernel writes only the tensors it declares outputs
#pragma once

#include "tk/dsl/Signature.h"

#include "mlir/IR/BuiltinOps.h"

namespace tk::dsl {

/// Throws std::invalid_argument naming the tensor, the op and its source line
/// when the kernel writes a tensor `sig` declares an input.
void refuseWrittenInputs(mlir::ModuleOp module, const KernelSignature &sig);

} // namespace tk::dsl
