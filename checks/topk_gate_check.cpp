//===- topk_gate_check.cpp ------------------------------------------------===//
#include "checks/topk_gate_check.h"
#include "kernels/moe/topk_gate.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const TopkGateCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.experts) + " k=" + std::to_string(c.topk) +
         (c.values == ScoreValues::Ties ? " ties" : c.values == ScoreValues::Extremes ? " extremes" : "");
}

std::vector<float> makeScores(const TopkGateCase &c) {
  std::vector<float> s(c.tokens * c.experts);
  std::mt19937 rng((uint32_t)(c.seed * 7919 + c.experts * 31 + c.topk));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float ties[] = {-1.0f, -0.0f, 0.0f, 0.5f, 1.0f};
  const float extremes[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(), -0.0f};
  for (float &v : s) {
    switch (c.values) {
    case ScoreValues::Normal: v = normal(rng); break;
    case ScoreValues::Ties: v = ties[rng() % 5]; break;
    case ScoreValues::Extremes: v = rng() % 4 == 0 ? extremes[rng() % 8] : normal(rng); break;
    }
  }
  return s;
}

CheckResult checkScoresToIndices(GpuSession *gpu, const std::vector<float> &scores,
                                 const std::vector<int64_t> &scoreShape, const std::vector<int64_t> &ref,
                                 const std::vector<int64_t> &outShape,
                                 const std::function<tk_status(const tk_tensor *, tk_tensor *)> &call, bool time) {
  CheckResult r;
  std::vector<int64_t> got(ref.size());
  Placement p{gpu};
  const size_t scoreBytes = scores.size() * 4, idxBytes = got.size() * 8;
  void *ds = p.put(scores.data(), scoreBytes), *dout = p.poisoned(got.data(), idxBytes, 0xEE);
  tk_tensor ts = p.tensor(ds, TK_F32, scoreShape), tout = p.tensor(dout, TK_I64, outShape);
  if (!r.called(call(&ts, &tout)))
    return r;
  p.get(got.data(), dout, idxBytes);
  for (size_t i = 0; i < got.size(); ++i)
    r.outMismatches += got[i] != ref[i];
  r.bytes = (double)scoreBytes + (double)idxBytes;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(&ts, &tout); }, 5, 50);
  return r;
}

CheckResult checkTopkGate(GpuSession *gpu, tk_context ctx, const TopkGateCase &c, bool time) {
  std::vector<float> scores = makeScores(c);
  std::vector<int64_t> ref(c.tokens * c.topk);
  kernels::moe::topkGateReference(scores.data(), c.tokens, c.experts, c.topk, ref.data());
  return checkScoresToIndices(gpu, scores, {c.tokens, c.experts}, ref, {c.tokens, c.topk},
                              [&](const tk_tensor *s, tk_tensor *out) {
                                return tk_topk_gate(ctx, s, (int32_t)c.topk, out, nullptr);
                              },
                              time);
}

} // namespace tk::checks
