//===- LayoutAttrs.cpp ----------------------------------------------------===//
#include "tk/compiler/Layout/LayoutAttrs.h"

namespace tk::compiler {

BlockedLayout toBlockedLayout(tile::BlockedLayoutAttr attr, llvm::ArrayRef<int64_t> shape) {
  BlockedLayout l;
  l.shape.assign(shape.begin(), shape.end());
  l.vec.assign(attr.getVec().begin(), attr.getVec().end());
  l.lanes.assign(attr.getLanes().begin(), attr.getLanes().end());
  l.warps.assign(attr.getWarps().begin(), attr.getWarps().end());
  return l;
}

tile::BlockedLayoutAttr toAttr(mlir::MLIRContext *ctx, const BlockedLayout &l) {
  return tile::BlockedLayoutAttr::get(ctx, l.vec, l.lanes, l.warps);
}

} // namespace tk::compiler
