//===- fused_weight.h - the Engram gate's product of RMSNorm weights (4.2) ===//
//
// wf = f32(wh) * f32(we) elementwise: exact in fp32 (two 8-bit significands
// multiply into at most 16 bits), so bit-exact against any fp32 product.
// The (n, H) tensors are read as one flat run in tiles of `elements`.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <cstdint>
#include <string>

namespace tk::kernels::engram {

struct FusedWeightConfig {
  /// Schedule: elements per CTA (0: 2048), threads (0: 256).
  int64_t elements = 0, threads = 0;
  int64_t tileElements() const { return elements ? elements : 2048; }
  int64_t numThreads() const { return threads ? threads : 256; }
  std::string key() const;
};

const OperatorSchedule<FusedWeightConfig> &fusedWeightSchedule();

/// Tensors: weight_hidden, weight_embed (n H) bf16; weight_fused (n H) f32.
dsl::BuiltKernel buildFusedWeight(mlir::MLIRContext &ctx, const FusedWeightConfig &config);

} // namespace tk::kernels::engram
