//===- normalize_weight_check.cpp -----------------------------------------===//
#include "checks/normalize_weight_check.h"
#include "kernels/moe/normalize_weight.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace tk::checks {

std::string describe(const NormalizeWeightCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.topk) + (c.edges ? " edges" : "");
}

CheckResult checkNormalizeWeight(GpuSession *gpu, tk_context ctx, const NormalizeWeightCase &c, bool time) {
  CheckResult r;
  const int64_t n = c.tokens, k = c.topk;
  std::vector<float> w(n * k), refDen(n), refOut(n * k), gotDen(n), gotOut(n * k);
  std::mt19937 rng((uint32_t)(c.seed * 2654435761u + n * 31 + k));
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (int64_t t = 0; t < n; ++t) {
    const bool zeroRow = c.edges && t % 7 == 3;
    for (int64_t s = 0; s < k; ++s) {
      float v = zeroRow ? 0.0f : uniform(rng);
      if (c.edges && !zeroRow && rng() % 5 == 0)
        v = rng() % 2 ? -v : std::numeric_limits<float>::denorm_min() * (float)(rng() % 100);
      w[t * k + s] = v;
    }
  }
  kernels::moe::normalizeWeightReference(w.data(), n, k, refDen.data(), refOut.data());
  Placement p{gpu};
  void *dw = p.put(w.data(), w.size() * 4);
  void *dd = p.poisoned(gotDen.data(), gotDen.size() * 4, 0xEE), *dn = p.poisoned(gotOut.data(), gotOut.size() * 4, 0xEE);
  tk_tensor tw = p.tensor(dw, TK_F32, {n, k}), td = p.tensor(dd, TK_F32, {n}), tn = p.tensor(dn, TK_F32, {n, k});
  auto call = [&] { return tk_normalize_weight(ctx, &tw, &td, &tn, nullptr); };
  if (!r.called(call()))
    return r;
  p.get(gotDen.data(), dd, gotDen.size() * 4);
  p.get(gotOut.data(), dn, gotOut.size() * 4);
  for (int64_t i = 0; i < n * k; ++i)
    r.outMismatches += std::memcmp(&gotOut[i], &refOut[i], 4) != 0;
  for (int64_t t = 0; t < n; ++t)
    r.sfMismatches += std::memcmp(&gotDen[t], &refDen[t], 4) != 0; // the denominator, as "sf"
  r.bytes = 4.0 * n * k * 2 + 4.0 * n;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::checks
