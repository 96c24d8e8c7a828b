//===- KernelOutline.h - a tile.kernel becomes a gpu.func -----------------===//
#pragma once

#include "Patterns.h"

namespace tk::compiler {

struct OutlineOptions {
  bool fp8Hardware = true, remarks = false, swizzle = true, rereadThreadIndex = true, readonlyLoads = false,
       warpgroupMma = false;
  int64_t swizzleBytes = 1, minBlocksPerSm = 0;
};

/// Replaces `kernel` by a gpu.func in a gpu.module of its own (float8
/// tensors as i8), the thread index read at its entry (and, where the
/// schedule asks, at the top of each loop over tile ops), its grid by block
/// indices or a persistent loop, and its block totals by per-thread shares
/// and block sums; returns the state its ops' patterns share.
mlir::FailureOr<KernelState *> outlineKernel(tile::KernelOp kernel, KernelStates &states,
                                             const OutlineOptions &options);

/// Erases each barrier that another follows in its block with only
/// memory-effect-free ops between them (BackToBackBarriers.cpp).
void eraseBackToBackBarriers(mlir::gpu::GPUFuncOp func);

} // namespace tk::compiler
