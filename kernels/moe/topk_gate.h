//===- topk_gate.h - the K best experts of each token (moe.md 2.1) --------===//
//
// topk_idx[t, k] = the expert of rank k in row t of scores, in the order of
// dsl/Select.h: greater score first, ties to the lower expert, +0 == -0.
// The reference's kernel needs finite scores (with -inf it can return an
// expert twice, with NaN padding indices, moe.md Q6); tk's order is total:
// NaN ranks below every number, -inf included, so every row gets K distinct
// experts whatever its values.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tk::kernels::moe {

/// Experts and K are compile-time (the reference specialises on both); the
/// token count is dynamic.
struct TopkGateConfig {
  int64_t experts = 0, topk = 0;
  /// Schedule: tokens per CTA (a power of two; 0: rowsPerBlock()'s default).
  int64_t rows = 0;
  /// Threads per CTA (0: 128).
  int64_t threads = 0;

  /// The tile's width: experts rounded up to a power of two, at least 32.
  int64_t width() const;
  /// At least 1024 scores per 128-thread CTA (4 tokens of 256 experts, 32
  /// of 32): every thread holds a vector of 8 (sm_100a's 32 bytes), none idle.
  int64_t rowsPerBlock() const { return rows ? rows : std::max<int64_t>(4, 1024 / width()); }
  int64_t numThreads() const { return threads ? threads : 128; }
  std::string key() const;
};

const OperatorSchedule<TopkGateConfig> &topkGateSchedule();

dsl::BuiltKernel buildTopkGate(mlir::MLIRContext &ctx, const TopkGateConfig &config);

/// Reference: scores (tokens, experts) row-major f32 -> topk_idx (tokens, k).
void topkGateReference(const float *scores, int64_t tokens, int64_t experts, int64_t k, int64_t *topkIdx);

} // namespace tk::kernels::moe
