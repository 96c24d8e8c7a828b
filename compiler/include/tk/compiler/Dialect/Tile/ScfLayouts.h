//===- ScfLayouts.h - layout rules of loops that carry fragments ----------===//
#pragma once

#include "mlir/IR/DialectRegistry.h"

namespace tk::tile {

/// Attaches LayoutInferenceOpInterface to scf.for and scf.yield, so loops
/// may carry fragments (ScfLayouts.cpp).
void registerScfLayoutModels(mlir::DialectRegistry &registry);

} // namespace tk::tile
