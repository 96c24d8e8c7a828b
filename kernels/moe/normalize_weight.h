//===- normalize_weight.h - routing weights that sum to one (moe.md 2.4) --===//
//
// d[t] = (((1e-20 + w[t, 0]) + w[t, 1]) + ...) + w[t, K - 1], one fp32
// addition at a time in that order, and n[t, k] = w[t, k] / d[t] (IEEE
// division): the reference's sequence, so the results are bit-exact.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <string>

namespace tk::kernels::moe {

struct NormalizeWeightConfig {
  int64_t topk = 0; ///< K, compile-time as in the reference; tokens are dynamic
  /// Schedule: tokens per CTA, one per thread (0: 128).
  int64_t rows = 0;
  int64_t rowsPerBlock() const { return rows ? rows : 128; }
  std::string key() const;
};

const OperatorSchedule<NormalizeWeightConfig> &normalizeWeightSchedule();

/// The reference's seed of every row's sum: an all-zero row divides by it.
constexpr float kNormalizeWeightSeed = 1e-20f;

dsl::BuiltKernel buildNormalizeWeight(mlir::MLIRContext &ctx, const NormalizeWeightConfig &config);

/// Reference: weights (tokens, k) row-major -> denominator (tokens), normalized (tokens, k).
void normalizeWeightReference(const float *weights, int64_t tokens, int64_t k, float *denominator, float *normalized);

} // namespace tk::kernels::moe
