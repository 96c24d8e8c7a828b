//===- fused_mapping_kernels.h - get_fused_mapping's three kernels (moe.md 2.9) ===//
//
// The F = N K slots are cut into B W chunks of S 32-slot steps (B blocks of W
// warps; S = ceil(F / (32 B W))): warp w of block b owns chunk b W + w, the
// flat slots [(b W + w) S 32, (b W + w + 1) S 32). Three kernels in the
// call's stream order, handing data through scratch memory:
//  - Count: each block counts its chunks' ids into a shared histogram
//    (shared integer atomics) and writes it as its row of counts (B, bins);
//    it also fills the three position tables with -1 (padding).
//  - Offsets (a block per 64 experts): base[b, e] = the ids e of the blocks
//    before b (tile.scan down the rows) and the aligned segment lengths a_e
//    (num_tokens_per_expert).
//  - Place: each block scans the a_e (expert_start; block 0 writes it and
//    expert_end) and counts its ids again per warp, so that warp w's cursor
//    for e starts at expert_start[e] + base[b, e] + the ids e of the warps
//    before it; each warp then walks its chunk in steps of 32, and a slot's
//    position is its cursor plus its rank among the equal ids of the step
//    (tile.count_equal); the first of them moves the cursor.
// The positions follow the canonical ascending flat order whatever B and W
// (moe.md Q1). Ids outside [0, E) are empty slots, as -1.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <string>

namespace tk::kernels::moe {

struct FusedMappingConfig {
  enum class Stage { Count, Offsets, Place };
  Stage stage = Stage::Place;
  int64_t bins = 256; ///< experts rounded up to 128, at least 256
  /// Schedule: blocks of the Count and Place grids (0: 128), their threads
  /// (0: 256), the Offsets kernel's threads (0: 1024). One schedule for the
  /// three kernels: Count and Place must cut the slots alike.
  int64_t blocks = 0, threads = 0, scanThreads = 0;
  /// 1: no Offsets kernel; each Place block sums the blocks' counts itself
  /// (two launches instead of three; 0: three kernels).
  int64_t merged = 0;
  /// dependentLaunchField (-1: kDefaultDependentLaunch; 1 made every variant slower on an H100, docs/design.md).
  int64_t pdl = -1;
  int64_t numBlocks() const { return blocks ? blocks : 128; }
  int64_t numThreads() const { return threads ? threads : 256; }
  int64_t numScanThreads() const { return scanThreads ? scanThreads : 1024; }
  int64_t warps() const { return numThreads() / 32; }
  std::string key() const;
};

const OperatorSchedule<FusedMappingConfig> &fusedMappingSchedule();
/// "" when `c`'s schedule fits its kernels, else why not.
std::string fusedMappingScheduleError(const FusedMappingConfig &c);

constexpr int64_t kFusedMappingScanColumns = 64; ///< experts per Offsets CTA (its scan down the blocks' counts)
constexpr int64_t kFusedMappingCountTile = 2048; ///< ids per step of the Count kernel

/// The bins for `experts`.
int64_t fusedMappingBins(int64_t experts);

/// Count: ids (F) i64 flat; counts (B bins) i32, pos_to_expert, pos_to_token,
/// pos_to_token_topk (M) i32; scalar E (i64).
/// Offsets: counts (B, bins) i32; base (B, bins) i32, num_tokens_per_expert
/// (1, E) i32; scalar alignment (i64).
/// Place: ids (F) i64, base (B bins) i32, num_tokens_per_expert (E) i32;
/// token_topk_to_pos (F) i32, the three position tables (M) i32,
/// expert_start, expert_end (E) i32; scalars E and K (i64). Merged: ids,
/// counts (B bins) i32; token_topk_to_pos, the three tables, expert_start,
/// expert_end, num_tokens_per_expert (E) i32; scalars E, K and alignment.
dsl::BuiltKernel buildFusedMapping(mlir::MLIRContext &ctx, const FusedMappingConfig &config);

} // namespace tk::kernels::moe
