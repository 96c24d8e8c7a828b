//===- MaterializeIntermediates.cpp - the ablation of fusion ---------------===//
//
// tk kernels are fused by construction: what one op computes stays in
// registers for the ops that use it. To measure what that is worth
// (TK_ABLATE=fusion), this pass sends every computed fragment through shared
// memory before the ops that compute with it, as separate stages would pass
// it through memory: a tile.relayout to the fragment's own layout after its
// producer, read by every user except the stores (which write it from
// registers, as the last stage would).
//===----------------------------------------------------------------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Transforms/Passes.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEMATERIALIZEINTERMEDIATES
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {

bool computes(Operation *op) {
  return isa<ParallelOp, ConvertOp, ReduceOp, ScanOp, CountEqualOp, TransposeOp, PackE2M1Op, UnpackE2M1Op, PackE5M6Op,
             UnpackE5M6Op>(op);
}

struct TileMaterializeIntermediates
    : public tk::tile::impl::TileMaterializeIntermediatesBase<TileMaterializeIntermediates> {
  void runOnOperation() override {
    SmallVector<Operation *> producers;
    getOperation().walk([&](Operation *op) {
      if (computes(op))
        producers.push_back(op);
    });
    for (Operation *op : producers) {
      Value result = op->getResult(0);
      auto type = cast<FragmentType>(result.getType());
      if (!type.getLayout()) {
        op->emitOpError() << "has no layout: tile-materialize-intermediates runs after tile-assign-layouts";
        return signalPassFailure();
      }
      if (llvm::all_of(result.getUsers(), [](Operation *user) { return isa<StoreOp>(user); }))
        continue;
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      Value copy = RelayoutOp::create(b, op->getLoc(), type, result);
      result.replaceUsesWithIf(copy, [&](OpOperand &use) {
        return use.getOwner() != copy.getDefiningOp() && !isa<StoreOp>(use.getOwner());
      });
    }
  }
};

} // namespace
