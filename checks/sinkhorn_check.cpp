//===- sinkhorn_check.cpp -------------------------------------------------===//
#include "checks/sinkhorn_check.h"
#include "checks/two_calls.h"
#include "kernels/mhc/sinkhorn.h"

#include <algorithm>
#include <cmath>
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
  tk_tensor tx = p.tensor(p.put(x.data(), held * 4), TK_F32, {m, n, n}),
            tg = p.tensor(p.put(g.data(), held * 4), TK_F32, {m, n, n});
  TwoCalls calls(p, {{{m, n, n}, TK_F32, want, within(1e-5, 1.3e-6)}});
  auto call = [&](const std::vector<tk_tensor> &o) {
    tk_tensor to = o[0];
    return c.backward ? tk_sinkhorn_normalize_bwd(ctx, &tg, &tx, (int32_t)c.repeat, eps, &to, nullptr)
                      : tk_sinkhorn_normalize_fwd(ctx, &tx, (int32_t)c.repeat, eps, &to, nullptr);
  };
  if (!calls.run(r, call))
    return r;
  r.bytes = (c.backward ? 12.0 : 8.0) * count;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(calls.first()); }, 3, 20);
  return r;
}

} // namespace tk::checks
