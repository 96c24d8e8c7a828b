//===- Registration.h - dialects, interfaces and passes tk uses -----------===//
#pragma once

#include "mlir/IR/DialectRegistry.h"

namespace tk::compiler {

/// The tile dialect plus every upstream dialect, interface and translation the
/// pipeline needs (and nothing else, to keep static binaries small).
void registerDialects(mlir::DialectRegistry &registry);
/// The tile passes and the `tile-to-ptx` pipeline, for tk-opt.
void registerPasses();

} // namespace tk::compiler
