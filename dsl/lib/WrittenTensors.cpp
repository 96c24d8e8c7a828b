//===- WrittenTensors.cpp - a kernel writes only the tensors it declares outputs
//
// The runtime checks at launch that no output shares memory with another
// tensor, which lets the GPU compiler read the tensors a kernel never writes
// as read-only, unaliased memory (tile-noalias-params). A store into a tensor
// declared an input would escape that check: refuse it when the kernel is built.
//===----------------------------------------------------------------------===//
#include "WrittenTensors.h"

#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Dialect/Tile/Writers.h"

#include <stdexcept>

using namespace mlir;

namespace tk::dsl {

void refuseWrittenInputs(ModuleOp module, const KernelSignature &sig) {
  module.walk([&](tile::KernelOp kernel) {
    for (auto [i, arg] : llvm::enumerate(kernel.getBody().getArguments())) {
      if (i >= sig.tensors.size() || sig.tensors[i].isOutput || !isa<MemRefType>(arg.getType()))
        continue;
      if (Operation *w = tile::firstWriter(arg)) {
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
