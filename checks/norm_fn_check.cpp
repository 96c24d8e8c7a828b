//===- norm_fn_check.cpp --------------------------------------------------===//
#include "checks/norm_fn_check.h"
#include "checks/bf16.h"
#include "checks/parallel_slices.h"
#include "checks/random_draws.h"
#include "checks/two_calls.h"
#include "kernels/mhc/norm_fn.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const NormFnCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.streams) + "x" + std::to_string(c.hidden) +
         (c.weighted ? " w" : "") + (c.accumulate ? " acc" : "");
}

CheckResult checkNormFn(GpuSession *gpu, tk_context ctx, const NormFnCase &c, bool time) {
  CheckResult r;
  const int64_t t = c.tokens, n = c.streams, h = c.hidden, g = n * h, n3 = 2 * n + n * n;
  const float eps = 1e-6f;
  std::mt19937 rng((uint32_t)(c.seed * 2654435761u + t * 131 + h * 7 + n + 2 * c.backward + 4 * c.weighted));
  std::normal_distribution<float> normal;
  const int64_t heldX = std::max<int64_t>(1, t * g), heldM = std::max<int64_t>(1, t * n3),
                heldT = std::max<int64_t>(1, t);
  // x scaled per stream as the spec's inputs (random_draws.h: in slices on the host's cores past 2^20 elements).
  std::vector<uint16_t> x = randnBf16(rng, t * g, g, h), acc(c.accumulate ? heldX : 0);
  std::vector<float> fn(n3 * g), w(c.weighted ? g : 0), gmix(heldM);
  for (int64_t i = 0; i < n3 * g; ++i)
    fn[i] = normal(rng) * 1e-4f * (1.0f + 0.01f * (float)((i % g) / h));
  for (float &v : w)
    v = normal(rng) * 0.1f + 1.0f;
  for (float &v : gmix)
    v = normal(rng);
  for (uint16_t &v : acc)
    v = bf16Bits(normal(rng));
  const float *wp = c.weighted ? w.data() : nullptr;

  std::vector<double> mix(heldM), mul(heldM), ss(heldT);
  forSlices(t, 256, [&](int64_t t0, int64_t t1, int64_t) {
    kernels::mhc::normFnForwardReference(x.data() + t0 * g, fn.data(), wp, t1 - t0, n3, g, eps, mix.data() + t0 * n3,
                                         mul.data() + t0 * n3, ss.data() + t0);
  });
  std::vector<float> mulF(heldM), ssF(heldT);
  for (int64_t i = 0; i < t * n3; ++i)
    mulF[i] = (float)mul[i];
  for (int64_t i = 0; i < t; ++i)
    ssF[i] = (float)ss[i];

  // Outputs with their tolerances: atol relative to the output's largest |ref| (the values' scale follows fn's
  // 1e-4 and T), except for grad_residual's bf16 rounding; rtol of |ref|.
  auto output = [](std::vector<double> want, std::vector<int64_t> shape, tk_dtype dtype, double atol, double rtol) {
    double largest = 0;
    for (double v : want)
      largest = std::max(largest, std::fabs(v));
    return CheckedOutput{shape, dtype, std::move(want), within(dtype == TK_BF16 ? atol : atol * largest, rtol)};
  };
  std::vector<CheckedOutput> outs;
  if (!c.backward) {
    outs = {output(mix, {t, n3}, TK_F32, 1e-4, 1e-4), output(mul, {t, n3}, TK_F32, 1e-4, 1e-4),
            output(ss, {t}, TK_F32, 0, 1e-5)};
  } else {
    std::vector<double> gres(heldX), gfn(n3 * g), gw(std::max<int64_t>(1, g));
    kernels::mhc::normFnBackwardReference(gmix.data(), x.data(), fn.data(), wp, mulF.data(), ssF.data(),
                                          c.accumulate ? acc.data() : nullptr, t, n3, g, eps, gres.data(), gfn.data(),
                                          gw.data());
    outs = {output(gres, {t, n, h}, TK_BF16, 1e-5, 1.6e-2), output(gfn, {n3, g}, TK_F32, 2e-3, 1e-3)};
    // grad_residual holds the earlier gradients when accumulating.
    if (c.accumulate)
      outs[0].initial = acc.data();
    if (c.weighted)
      outs.push_back(output(gw, {g}, TK_F32, 2e-3, 1e-3));
  }
  Placement p{gpu};
  tk_tensor tx = p.tensor(p.put(x.data(), heldX * 2), TK_BF16, {t, n, h});
  tk_tensor tfn = p.tensor(p.put(fn.data(), fn.size() * 4), TK_F32, {n3, g});
  tk_tensor tw = c.weighted ? p.tensor(p.put(w.data(), w.size() * 4), TK_F32, {g}) : tk_tensor{};
  tk_tensor tg = p.tensor(p.put(gmix.data(), heldM * 4), TK_F32, {t, n3});
  tk_tensor tmul = p.tensor(p.put(mulF.data(), heldM * 4), TK_F32, {t, n3});
  tk_tensor tss = p.tensor(p.put(ssF.data(), heldT * 4), TK_F32, {t});
  TwoCalls calls(p, std::move(outs));
  auto call = [&](const std::vector<tk_tensor> &outputs) {
    std::vector<tk_tensor> o = outputs;
    if (!c.backward)
      return tk_mhc_pre_norm_fn_fwd(ctx, &tx, &tfn, c.weighted ? &tw : nullptr, eps, &o[0], &o[1], &o[2], nullptr);
    return tk_mhc_pre_norm_fn_bwd(ctx, &tg, &tx, &tfn, c.weighted ? &tw : nullptr, &tmul, &tss, eps, (int)c.accumulate,
                                  &o[0], &o[1], c.weighted ? &o[2] : nullptr, nullptr);
  };
  if (!calls.run(r, call))
    return r;
  const double tg2 = 2.0 * t * g, fnBytes = 4.0 * n3 * g;
  r.bytes = c.backward ? 8.0 * t * n3 + 4.0 * t + tg2 * (c.accumulate ? 2 : 1) + fnBytes + tg2 + fnBytes
                       : tg2 + fnBytes + 4.0 * t * n3 + 4.0 * t * (n3 + 1);
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(calls.first()); }, 3, 20);
  return r;
}

} // namespace tk::checks
