//===- BackToBackBarriers.cpp - one barrier where two meet ----------------===//
//
// Lowerings end their shared-memory exchanges with a barrier so that the next
// writer cannot overtake a reader (tile.dot's staged operand, a pipeline's
// iteration); where two such barriers meet with only register arithmetic
// between them, the second already orders everything the first did.
//===----------------------------------------------------------------------===//
#include "KernelOutline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace tk::compiler {

void eraseBackToBackBarriers(gpu::GPUFuncOp func) {
  SmallVector<gpu::BarrierOp> redundant;
  func.walk([&](gpu::BarrierOp barrier) {
    for (Operation *next = barrier->getNextNode(); next; next = next->getNextNode()) {
      if (isa<gpu::BarrierOp>(next)) {
        redundant.push_back(barrier);
        return;
      }
      if (next->getNumRegions() || !isMemoryEffectFree(next))
        return;
    }
  });
  for (gpu::BarrierOp barrier : redundant)
    barrier.erase();
}

} // namespace tk::compiler
