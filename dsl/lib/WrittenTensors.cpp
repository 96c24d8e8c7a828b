//===- WrittenTensors.cpp - a kernel writes only the tensors it declares outputs
//
// The GPU compiler takes every pointer parameter as not aliased and reads
// inputs through the read-only cache; the runtime checks at launch only that
// outputs share no memory with other tensors. A store into a tensor declared
// an input would escape both: refuse it when the kernel is built.
//===----------------------------------------------------------------------===//
#include "WrittenTensors.h"

#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <stdexcept>

using namespace mlir;

namespace tk::dsl {

namespace {

/// The first op that may write the memory of `memref` (through views of it too), or null.
Operation *firstWriter(Value memref) {
  for (OpOperand &use : memref.getUses()) {
    Operation *user = use.getOwner();
    if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
      if (view.getViewSource() == memref)
        if (Operation *w = firstWriter(view->getResult(0)))
          return w;
      continue;
    }
    if (auto copy = dyn_cast<tile::CopyOp>(user); copy && copy.getSource() == memref)
      continue; // the copy writes its shared destination
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects || effects.hasEffect<MemoryEffects::Write>())
      return user; // ops that say nothing of their effects count as writers
  }
  return nullptr;
}

} // namespace

void refuseWrittenInputs(ModuleOp module, const KernelSignature &sig) {
  module.walk([&](tile::KernelOp kernel) {
    for (auto [i, arg] : llvm::enumerate(kernel.getBody().getArguments())) {
      if (i >= sig.tensors.size() || sig.tensors[i].isOutput || !isa<MemRefType>(arg.getType()))
        continue;
      if (Operation *w = firstWriter(arg)) {
        std::string at;
        if (auto line = dyn_cast<FileLineColLoc>(w->getLoc()))
          at = line.getFilename().str() + ":" + std::to_string(line.getLine()) + ": ";
        throw std::invalid_argument(at + "kernel '" + sig.name + "' writes tensor '" + sig.tensors[i].name + "' (" +
                                    w->getName().getStringRef().str() +
                                    "), which it declares an input: declare it with output() (the compiler reads "
                                    "inputs as read-only memory that no output shares)");
      }
    }
  });
}

} // namespace tk::dsl
