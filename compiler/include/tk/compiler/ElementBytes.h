//===- ElementBytes.h - bytes of one element in memory --------------------===//
#pragma once

#include "mlir/IR/Types.h"

#include <algorithm>
#include <cstdint>

namespace tk::compiler {

/// Bytes one element of `elt` (an integer or float type) takes in memory:
/// its bits / 8, at least 1 (an i1 takes a byte).
inline int64_t elementBytes(mlir::Type elt) { return std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8); }

} // namespace tk::compiler
