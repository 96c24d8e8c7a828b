//===- LayoutAttrs.h - between layout attributes and their arithmetic -----===//
#pragma once

#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Layout/BlockedLayout.h"

namespace tk::compiler {

BlockedLayout toBlockedLayout(tile::BlockedLayoutAttr attr, llvm::ArrayRef<int64_t> shape);
tile::BlockedLayoutAttr toAttr(mlir::MLIRContext *ctx, const BlockedLayout &layout);

} // namespace tk::compiler
