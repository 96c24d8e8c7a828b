//===- topk_group_idx.h - topk_sum_and_topk_group_idx (moe.md 2.2) --------===//
//
// Each of G expert groups scores the sum of its q (1 or 2) largest expert
// scores (as a multiset: a repeated maximum counts twice); the Kg best
// groups per token, best first, in dsl/Select.h's order (ties to the lower
// group, +0 == -0, NaN below every number: a group holding a NaN among its
// top q scores ranks last, where the reference's result is undefined).
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <string>

namespace tk::kernels::moe {

struct TopkGroupIdxConfig {
  int64_t groups = 0, perGroup = 0, topkSum = 2, topkGroups = 0; ///< G, epg, q, Kg (compile-time, as the reference)
  /// Schedule: tokens per CTA and threads (0: at least 1024 scores per 128 threads).
  int64_t rows = 0, threads = 0;
  int64_t experts() const { return groups * perGroup; }
  int64_t rowsPerBlock() const;
  int64_t numThreads() const { return threads ? threads : 128; }
  std::string key() const;
};

const OperatorSchedule<TopkGroupIdxConfig> &topkGroupIdxSchedule();

dsl::BuiltKernel buildTopkGroupIdx(mlir::MLIRContext &ctx, const TopkGroupIdxConfig &config);

/// Reference: scores (tokens, groups, perGroup) row-major -> group_idx (tokens, topkGroups).
void topkGroupIdxReference(const float *scores, int64_t tokens, int64_t groups, int64_t perGroup, int64_t topkSum,
                           int64_t topkGroups, int64_t *groupIdx);

} // namespace tk::kernels::moe
