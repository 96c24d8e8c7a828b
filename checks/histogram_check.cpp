//===- histogram_check.cpp ------------------------------------------------===//
#include "checks/histogram_check.h"
#include "kernels/moe/histogram.h"

#include <cstring>
#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const HistogramCase &c) {
  // "NxK e=local/total [Ka=k]": what bench/peers/moe_layout_rows.py reads.
  return std::to_string(c.tokens) + "x" + std::to_string(c.topk) + " e=" + std::to_string(c.experts / c.ranks) + "/" +
         std::to_string(c.experts) + (c.auxTopk ? " Ka=" + std::to_string(c.auxTopk) : "") + (c.edges ? " edges" : "");
}

CheckResult checkHistogram(GpuSession *gpu, tk_context ctx, const HistogramCase &c, bool time) {
  CheckResult r;
  const int64_t n = c.tokens, k = c.topk, g = c.experts / c.ranks;
  std::vector<int64_t> ids = moeTopkIdx(n, k, c.experts, c.ranks, c.seed);
  std::mt19937_64 rng(c.seed + 11);
  if (c.edges)
    for (int64_t &v : ids)
      if (rng() % 7 == 0)
        v = rng() % 3 == 0 ? g + (int64_t)(rng() % 9) : rng() % 3 == 1 ? -2 - (int64_t)(rng() % 9) : (1ll << 33) + 1;
  std::vector<int32_t> counts(g);
  kernels::moe::groupCountReference(ids.data(), n * k, g, counts.data());
  std::vector<unsigned char> ref(g * 4), got(g * 4);
  if (c.auxTopk) {
    std::vector<float> fi(g);
    kernels::moe::auxFiReference(counts.data(), g, n, c.auxTopk, fi.data());
    std::memcpy(ref.data(), fi.data(), g * 4);
  } else {
    std::memcpy(ref.data(), counts.data(), g * 4);
  }
  Placement p{gpu};
  void *dids = p.put(ids.data(), std::max<size_t>(ids.size() * 8, 8)),
       *dout = p.poisoned(got.data(), got.size(), 0xEE);
  tk_tensor tids = p.tensor(dids, TK_I64, {n, k}), tout = p.tensor(dout, c.auxTopk ? TK_F32 : TK_I32, {g});
  auto call = [&] {
    return c.auxTopk ? tk_aux_fi(ctx, &tids, (int32_t)g, (int32_t)c.auxTopk, &tout, nullptr)
                     : tk_group_count(ctx, &tids, (int32_t)g, &tout, nullptr);
  };
  if (!r.called(call()))
    return r;
  p.get(got.data(), dout, got.size());
  for (int64_t e = 0; e < g; ++e)
    r.outMismatches += std::memcmp(&got[e * 4], &ref[e * 4], 4) != 0;
  r.bytes = 8.0 * n * k + 4.0 * g;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 3, 20);
  return r;
}

} // namespace tk::checks
