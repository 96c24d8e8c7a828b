//===- unique_group_check.h - run inplace_unique_group_indices, check -----===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct UniqueGroupCase {
  int64_t rows, topk, experts, groups; ///< ids: K distinct experts of `experts` per row, as groups of experts / groups
  bool edges = false; ///< also negative ids other than -1 and ids past the groups
  uint64_t seed = 1;
};

std::string describe(const UniqueGroupCase &c);

/// moe.md 4.1's group ids (distinct experts per row, -1 for some, divided
/// into groups) through tk_inplace_unique_group_indices on the GPU of `gpu`
/// (timed when `time`, on a fresh copy each run) or the CPU path, compared
/// exactly with the reference; bytes = ids read + 4 per changed id (the
/// spec's count).
CheckResult checkUniqueGroups(GpuSession *gpu, tk_context ctx, const UniqueGroupCase &c, bool time);

} // namespace tk::checks
