//===- top2_sum_gate_check.h - run top2_sum_gate, check, time -------------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct Top2SumGateCase {
  int64_t tokens, experts, topk, shared; ///< shared: shared-as-routed slots (0: off; then the identity map)
  tk_scoring scoring = TK_SCORING_SIGMOID;
  int64_t tpRank = 0, padded = 0; ///< padded: rows past `tokens` with mask false
  bool fixed = false;             ///< every row reuses random stored ids
  uint64_t seed = 1;
  int64_t groups = 0, topkGroups = 0; ///< G, Kg (both 0: no group limiting)
  /// With shared slots: the replica table maps logical ids to physical ids across int32's range (near INT32_MAX,
  /// and negative), not to themselves, so that EP/TP ownership meets the extremes of its 32-bit arithmetic.
  bool farIds = false;
  /// With shared slots and > 0: X + 1 = `replicas` columns of distinct physical ids, logical counts drawn in
  /// [1, replicas] and ep_rank near INT32_MAX, so the replica hash (ep_rank + t 23333) mod n picks columns that
  /// differ (0: moe.md 2.3's setup, ep_rank 0 and X = 32 columns of one id, counts 1).
  int64_t replicas = 0;
};

std::string describe(const Top2SumGateCase &c);

/// moe.md 2.3's test setup (rsf 1.5, 4 EP ranks, Tp 2, ep_rank 0, X = 32
/// with shared-as-routed; rows redrawn until the top-K selection scores are
/// 2e-6 apart) through tk_top2_sum_gate on the GPU of `gpu` or the CPU path:
/// ids and unmapped ids exactly, weights within rtol 1e-5 + atol 1e-8 of
/// top2SumGateReference.
CheckResult checkTop2SumGate(GpuSession *gpu, tk_context ctx, const Top2SumGateCase &c, bool time);

} // namespace tk::checks
