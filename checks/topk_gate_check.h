//===- topk_gate_check.h - run topk_gate, check, time ---------------------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tk::checks {

/// The scores a case draws.
enum class ScoreValues {
  Normal,   ///< N(0, 1), as the spec's tests (randn)
  Ties,     ///< from {-1, -0, +0, 0.5, 1}: most rows tie, +0 and -0 must compare equal
  Extremes, ///< normal values with +-inf, NaN, subnormals and the largest finite values mixed in
};

struct TopkGateCase {
  int64_t tokens, experts, topk;
  ScoreValues values = ScoreValues::Normal;
  uint64_t seed = 1;
};

std::string describe(const TopkGateCase &c);

/// The scores a case draws: (tokens, experts) row-major, from its seed.
std::vector<float> makeScores(const TopkGateCase &c);

/// The gates' shared check: `scores` placed as an f32 tensor of
/// `scoreShape`, an i64 output of `outShape` poisoned, `call(scores, out)`,
/// the output compared exactly with `ref`; bytes = scores + output, timed
/// when `time` on a GPU.
CheckResult checkScoresToIndices(GpuSession *gpu, const std::vector<float> &scores,
                                 const std::vector<int64_t> &scoreShape, const std::vector<int64_t> &ref,
                                 const std::vector<int64_t> &outShape,
                                 const std::function<tk_status(const tk_tensor *, tk_tensor *)> &call, bool time);

/// Scores through tk_topk_gate on the GPU of `gpu` (timed when `time`) or on
/// the CPU path (null), topk_idx compared exactly with the reference; bytes =
/// scores + topk_idx (moe.md 2.1).
CheckResult checkTopkGate(GpuSession *gpu, tk_context ctx, const TopkGateCase &c, bool time);

} // namespace tk::checks
