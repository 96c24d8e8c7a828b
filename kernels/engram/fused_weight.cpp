//===- fused_weight.cpp ---------------------------------------------------===//
#include "kernels/engram/fused_weight.h"

namespace tk::kernels::engram {

using namespace tk::dsl;

BuiltKernel buildFusedWeight(mlir::MLIRContext &ctx, const FusedWeightConfig &c) {
  const int64_t tile = c.tileElements();
  KernelBuilder k(ctx, "engram_fused_weight", c.numThreads());
  Dim n = k.dynamic("elements");
  Tensor wh = k.input("weight_hidden", {n}, DType::BF16);
  Tensor we = k.input("weight_embed", {n}, DType::BF16);
  Tensor wf = k.output("weight_fused", {n}, DType::F32);
  k.grid({ceil_div(n, tile)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * tile;
    k.store(wf, {at}, k.load(wh, {at}, {tile}).to(DType::F32) * k.load(we, {at}, {tile}).to(DType::F32));
  });
  return k.finish();
}

} // namespace tk::kernels::engram
