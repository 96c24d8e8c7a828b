//===- norm_fn_check.cpp --------------------------------------------------===//
#include "checks/norm_fn_check.h"
#include "checks/bf16.h"
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
  std::vector<uint16_t> x(heldX), acc(c.accumulate ? heldX : 0);
  for (int64_t i = 0; i < t * g; ++i)
    x[i] = bf16Bits(normal(rng) * (1.0f + 0.01f * (float)((i % g) / h)));
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
  kernels::mhc::normFnForwardReference(x.data(), fn.data(), wp, t, n3, g, eps, mix.data(), mul.data(), ss.data());
  std::vector<float> mulF(heldM), ssF(heldT);
  for (int64_t i = 0; i < t * n3; ++i)
    mulF[i] = (float)mul[i];
  for (int64_t i = 0; i < t; ++i)
    ssF[i] = (float)ss[i];

  // Outputs, each with its reference and tolerance (atol, rtol).
  struct Out {
    std::vector<double> want;
    std::vector<int64_t> shape;
    tk_dtype dtype;
    double atol, rtol;
  };
  std::vector<Out> outs;
  if (!c.backward) {
    outs = {{mix, {t, n3}, TK_F32, 1e-4, 1e-4}, {mul, {t, n3}, TK_F32, 1e-4, 1e-4}, {ss, {t}, TK_F32, 0, 1e-5}};
  } else {
    std::vector<double> gres(heldX), gfn(n3 * g), gw(std::max<int64_t>(1, g));
    kernels::mhc::normFnBackwardReference(gmix.data(), x.data(), fn.data(), wp, mulF.data(), ssF.data(),
                                          c.accumulate ? acc.data() : nullptr, t, n3, g, eps, gres.data(), gfn.data(),
                                          gw.data());
    outs = {{gres, {t, n, h}, TK_BF16, 1e-5, 1.6e-2}, {gfn, {n3, g}, TK_F32, 2e-3, 1e-3}};
    if (c.weighted)
      outs.push_back({gw, {g}, TK_F32, 2e-3, 1e-3});
  }
  Placement p{gpu};
  tk_tensor tx = p.tensor(p.put(x.data(), heldX * 2), TK_BF16, {t, n, h});
  tk_tensor tfn = p.tensor(p.put(fn.data(), fn.size() * 4), TK_F32, {n3, g});
  tk_tensor tw = c.weighted ? p.tensor(p.put(w.data(), w.size() * 4), TK_F32, {g}) : tk_tensor{};
  tk_tensor tg = p.tensor(p.put(gmix.data(), heldM * 4), TK_F32, {t, n3});
  tk_tensor tmul = p.tensor(p.put(mulF.data(), heldM * 4), TK_F32, {t, n3});
  tk_tensor tss = p.tensor(p.put(ssF.data(), heldT * 4), TK_F32, {t});
  auto bytesOf = [](const Out &o) {
    int64_t e = 1;
    for (int64_t d : o.shape)
      e *= d;
    return std::max<int64_t>(1, e) * (o.dtype == TK_BF16 ? 2 : 4);
  };
  std::vector<std::vector<uint8_t>> got[2];
  std::vector<void *> placed[2];
  for (int k = 0; k < 2; ++k)
    for (size_t o = 0; o < outs.size(); ++o) {
      got[k].emplace_back(bytesOf(outs[o]));
      // grad_residual holds the earlier gradients when accumulating (restored before each call).
      const bool seeded = c.backward && o == 0 && c.accumulate;
      // (The CPU path writes into the host buffer it is given: each call gets its own copy of acc.)
      if (seeded)
        std::memcpy(got[k][o].data(), acc.data(), heldX * 2);
      placed[k].push_back(seeded ? p.put(got[k][o].data(), heldX * 2)
                                 : p.poisoned(got[k][o].data(), got[k][o].size(), 0xEE));
    }
  auto call = [&](int k) {
    std::vector<tk_tensor> o;
    for (size_t i = 0; i < outs.size(); ++i)
      o.push_back(p.tensor(placed[k][i], outs[i].dtype, outs[i].shape));
    if (!c.backward)
      return tk_mhc_pre_norm_fn_fwd(ctx, &tx, &tfn, c.weighted ? &tw : nullptr, eps, &o[0], &o[1], &o[2], nullptr);
    return tk_mhc_pre_norm_fn_bwd(ctx, &tg, &tx, &tfn, c.weighted ? &tw : nullptr, &tmul, &tss, eps, (int)c.accumulate,
                                  &o[0], &o[1], c.weighted ? &o[2] : nullptr, nullptr);
  };
  for (int k = 0; k < 2; ++k) {
    if (!r.called(call(k)))
      return r;
    for (size_t o = 0; o < outs.size(); ++o)
      p.get(got[k][o].data(), placed[k][o], got[k][o].size());
  }
  for (size_t o = 0; o < outs.size(); ++o) {
    // atol is relative to the output's largest |ref| (the values' scale follows fn's 1e-4 and T), except for
    // grad_residual's bf16 rounding.
    double largest = 0;
    for (double v : outs[o].want)
      largest = std::max(largest, std::fabs(v));
    const double atol = outs[o].dtype == TK_BF16 ? outs[o].atol : outs[o].atol * largest;
    const int64_t bytes = bytesOf(outs[o]), count = (int64_t)outs[o].want.size();
    const bool empty = outs[o].shape[0] == 0;
    r.countMismatches += std::memcmp(got[0][o].data(), got[1][o].data(), bytes) != 0;
    for (int64_t i = 0; !empty && i < count && i < bytes / (outs[o].dtype == TK_BF16 ? 2 : 4); ++i) {
      double v;
      if (outs[o].dtype == TK_BF16) {
        uint16_t b;
        std::memcpy(&b, &got[0][o][2 * i], 2);
        v = bf16Value(b);
      } else {
        float f;
        std::memcpy(&f, &got[0][o][4 * i], 4);
        v = f;
      }
      const double want = outs[o].want[i];
      r.outMismatches += !(std::fabs(v - want) <= atol + outs[o].rtol * std::fabs(want));
    }
  }
  const double tg2 = 2.0 * t * g, fnBytes = 4.0 * n3 * g;
  r.bytes = c.backward ? 8.0 * t * n3 + 4.0 * t + tg2 * (c.accumulate ? 2 : 1) + fnBytes + tg2 + fnBytes
                       : tg2 + fnBytes + 4.0 * t * n3 + 4.0 * t * (n3 + 1);
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(0); }, 3, 20);
  return r;
}

} // namespace tk::checks
