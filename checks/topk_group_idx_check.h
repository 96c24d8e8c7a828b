//===- topk_group_idx_check.h - run topk_sum_and_topk_group_idx, check ----===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "checks/topk_gate_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct TopkGroupIdxCase {
  int64_t tokens, groups, perGroup, topkSum, topkGroups;
  ScoreValues values = ScoreValues::Normal;
  uint64_t seed = 1;
};

std::string describe(const TopkGroupIdxCase &c);

/// Scores (N, G, epg) through tk_topk_sum_and_topk_group_idx on the GPU of
/// `gpu` (timed when `time`) or the CPU path, group_idx compared exactly with
/// the reference; bytes = scores + group_idx (moe.md 2.2).
CheckResult checkTopkGroupIdx(GpuSession *gpu, tk_context ctx, const TopkGroupIdxCase &c, bool time);

} // namespace tk::checks
