//===- sinkhorn_check.cpp -------------------------------------------------===//
#include "checks/sinkhorn_check.h"
#include "kernels/mhc/sinkhorn.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const SinkhornCase &c) {
  return std::to_string(c.matrices) + "x" + std::to_string(c.n) + "x" + std::to_string(c.n) +
         " repeat=" + std::to_string(c.repeat);
}

CheckResult checkSinkhorn(GpuSession *gpu, tk_context ctx, const SinkhornCase &c, bool time) {
  CheckResult r;
  const int64_t m = c.matrices, n = c.n, count = m * n * n, held = std::max<int64_t>(1, count);
  const float eps = 1e-6f;
  std::mt19937 rng((uint32_t)(c.seed * 2654435761u + m * 131 + n * 7 + c.repeat + c.backward));
  std::normal_distribution<float> normal;
  std::vector<float> x(held), g(held);
  for (float &v : x)
    v = normal(rng);
  for (float &v : g)
    v = normal(rng);
  std::vector<double> want(held);
  if (c.backward)
    kernels::mhc::sinkhornBackwardReference(g.data(), x.data(), m, n, c.repeat, eps, want.data());
  else
    kernels::mhc::sinkhornForwardReference(x.data(), m, n, c.repeat, eps, want.data());
  Placement p{gpu};
  std::vector<float> got[2] = {std::vector<float>(held), std::vector<float>(held)};
  tk_tensor tx = p.tensor(p.put(x.data(), held * 4), TK_F32, {m, n, n}),
            tg = p.tensor(p.put(g.data(), held * 4), TK_F32, {m, n, n});
  void *outs[2] = {p.poisoned(got[0].data(), held * 4, 0xEE), p.poisoned(got[1].data(), held * 4, 0xEE)};
  auto call = [&](int k) {
    tk_tensor to = p.tensor(outs[k], TK_F32, {m, n, n});
    return c.backward ? tk_sinkhorn_normalize_bwd(ctx, &tg, &tx, (int32_t)c.repeat, eps, &to, nullptr)
                      : tk_sinkhorn_normalize_fwd(ctx, &tx, (int32_t)c.repeat, eps, &to, nullptr);
  };
  for (int k = 0; k < 2; ++k) {
    if (!r.called(call(k)))
      return r;
    p.get(got[k].data(), outs[k], held * 4);
  }
  r.countMismatches += std::memcmp(got[0].data(), got[1].data(), count * 4) != 0;
  for (int64_t i = 0; i < count; ++i)
    r.outMismatches += !(std::fabs(got[0][i] - want[i]) <= 1e-5 + 1.3e-6 * std::fabs(want[i]));
  r.bytes = (c.backward ? 12.0 : 8.0) * count;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(0); }, 3, 20);
  return r;
}

} // namespace tk::checks
