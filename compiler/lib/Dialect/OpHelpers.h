//===- OpHelpers.h - checks shared by the op families' verifiers ----------===//
#pragma once

#include "mlir/IR/Attributes.h"

namespace tk::tile {

/// Two fragment layouts that may meet: equal, or one not assigned yet.
inline bool layoutsCompatible(mlir::Attribute a, mlir::Attribute b) { return !a || !b || a == b; }

} // namespace tk::tile
