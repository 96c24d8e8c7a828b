//===- Writers.h - which ops write a kernel's tensor ----------------------===//
#pragma once

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace tk::tile {

/// The first op that may write the memory of `memref` (a kernel's tensor),
/// through views of it too, or null when the kernel only reads it. Ops that
/// declare no memory effects count as writers; tile.copy writes its shared
/// destination, not its source.
mlir::Operation *firstWriter(mlir::Value memref);

} // namespace tk::tile
