//===- Writers.cpp - which ops write a kernel's tensor --------------------===//
#include "tk/compiler/Dialect/Tile/Writers.h"
#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace tk::tile {

Operation *firstWriter(Value memref) {
  for (OpOperand &use : memref.getUses()) {
    Operation *user = use.getOwner();
    if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
      if (view.getViewSource() == memref)
        if (Operation *w = firstWriter(view->getResult(0)))
          return w;
      continue;
    }
    if (auto copy = dyn_cast<CopyOp>(user); copy && copy.getSource() == memref)
      continue; // the copy writes its (shared) destination, not its source
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects || effects.hasEffect<MemoryEffects::Write>())
      return user; // an op that says nothing of its effects counts as a writer
  }
  return nullptr;
}

} // namespace tk::tile
