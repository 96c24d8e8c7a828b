//===- moe_inputs.h - the MoE tests' grid and routing inputs (moe.md 4.1) -===//
#pragma once

#include <cstdint>
#include <vector>

namespace tk::checks {

/// The routed token counts of moe.md 4.1's grid: for each K in {2, 6, 8, 9}
/// and (experts, EP ranks) in {(72, 8), (256, 8), (256, 64)}, the rows a
/// rank keeps of 4001 tokens per rank, N' = 4001 ep (1 - (1 - 1/ep)^K).
struct MoeGridPoint {
  int64_t tokens, topk, experts, ranks;
};
std::vector<MoeGridPoint> moeGrid();

/// A rank's topk_idx as moe.md 4.1 generates it: each of `tokens` rows picks
/// K distinct experts of `experts` (all ranks'); ids of other ranks' experts
/// (>= experts / ranks) become -1, and a row with no local id is drawn again.
/// Row-major (tokens, topk); local ids in [0, experts / ranks).
std::vector<int64_t> moeTopkIdx(int64_t tokens, int64_t topk, int64_t experts, int64_t ranks, uint64_t seed);

} // namespace tk::checks
