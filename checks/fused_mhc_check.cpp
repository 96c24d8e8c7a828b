//===- fused_mhc_check.cpp ------------------------------------------------===//
#include "checks/fused_mhc_check.h"
#include "checks/bf16.h"
#include "checks/parallel_slices.h"
#include "checks/random_draws.h"
#include "kernels/mhc/big_fuse.h"
#include "kernels/mhc/streams.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace tk::checks {

namespace {

/// An output buffer where the operator writes it, and its host copy.
struct Out {
  std::vector<uint8_t> host;
  void *placed = nullptr;
  Out(Placement &p, int64_t bytes) : host(std::max<int64_t>(1, bytes)) {
    placed = p.poisoned(host.data(), host.size(), 0xEE);
  }
  const uint8_t *fetch(Placement &p) {
    p.get(host.data(), placed, host.size());
    return host.data();
  }
};

int64_t differing(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b, int64_t elementBytes) {
  int64_t d = 0;
  for (size_t i = 0; i + elementBytes <= a.size(); i += elementBytes)
    d += std::memcmp(&a[i], &b[i], elementBytes) != 0;
  return d;
}

} // namespace

std::string describe(const BigFuseCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.streams) + "x" + std::to_string(c.hidden) +
         " repeat=" + std::to_string(c.repeat) + (c.postMult != 1.0f ? " p=" + std::to_string(c.postMult) : "");
}

std::string describe(const MultilayerCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.streams) + "x" + std::to_string(c.hidden) +
         " L=" + std::to_string(c.layers) + " Lp=" + std::to_string(c.posts);
}

CheckResult checkBigFuse(GpuSession *gpu, tk_context ctx, const BigFuseCase &c, bool time) {
  CheckResult r;
  const int64_t t = c.tokens, n = c.streams, h = c.hidden, g = n * h, n3 = 2 * n + n * n;
  const float eps = 1e-6f;
  std::mt19937 rng((uint32_t)(c.seed * 2654435761u + t * 131 + h * 7 + n + c.repeat));
  std::vector<uint16_t> x = randnBf16(rng, t * g, g, h);
  std::vector<float> fn(n3 * g);
  std::normal_distribution<float> normal;
  for (int64_t i = 0; i < n3 * g; ++i)
    fn[i] = normal(rng) * 1e-4f * (1.0f + 0.01f * (float)((i % g) / h));
  std::vector<float> scale = randn(rng, 3, 0.1f), base = randn(rng, n3, 0.1f);

  Placement p{gpu};
  tk_tensor tx = p.tensor(p.put(x.data(), x.size() * 2), TK_BF16, {t, n, h});
  tk_tensor tfn = p.tensor(p.put(fn.data(), fn.size() * 4), TK_F32, {n3, g});
  tk_tensor tscale = p.tensor(p.put(scale.data(), 12), TK_F32, {3});
  tk_tensor tbase = p.tensor(p.put(base.data(), n3 * 4), TK_F32, {n3});
  // The chain, through tk's own operators.
  Out mix(p, t * n3 * 4), pre(p, t * n * 4), logits(p, t * n * n * 4);
  Out chain[3] = {Out(p, t * n * 4), Out(p, t * n * n * 4), Out(p, t * h * 2)};
  tk_tensor tmix = p.tensor(mix.placed, TK_F32, {t, n3}), tpre = p.tensor(pre.placed, TK_F32, {t, n}),
            tlogits = p.tensor(logits.placed, TK_F32, {t, n, n});
  tk_tensor cpost = p.tensor(chain[0].placed, TK_F32, {t, n}), ccomb = p.tensor(chain[1].placed, TK_F32, {t, n, n}),
            cin = p.tensor(chain[2].placed, TK_BF16, {t, h});
  const int32_t repeat = (int32_t)c.repeat;
  if (!r.called(tk_mhc_pre_norm_fn_fwd(ctx, &tx, &tfn, nullptr, eps, &tmix, nullptr, nullptr, nullptr)) ||
      !r.called(
          tk_mhc_pre_split_mixes_fwd(ctx, &tmix, &tscale, &tbase, c.postMult, eps, &tpre, &cpost, &tlogits, nullptr)) ||
      !r.called(tk_sinkhorn_normalize_fwd(ctx, &tlogits, repeat, eps, &ccomb, nullptr)) ||
      !r.called(tk_mhc_pre_apply_mix_fwd(ctx, &tx, &tpre, &cin, nullptr)))
    return r;
  const int64_t bytes[3] = {t * n * 4, t * n * n * 4, t * h * 2}, elementBytes[3] = {4, 4, 2};
  std::vector<Out> fused[2];
  for (int k = 0; k < 2; ++k)
    for (int o = 0; o < 3; ++o)
      fused[k].emplace_back(p, bytes[o]);
  auto call = [&](int k) {
    tk_tensor post = p.tensor(fused[k][0].placed, TK_F32, {t, n}),
              comb = p.tensor(fused[k][1].placed, TK_F32, {t, n, n}),
              in = p.tensor(fused[k][2].placed, TK_BF16, {t, h});
    return tk_mhc_pre_big_fuse(ctx, &tx, &tfn, &tscale, &tbase, eps, eps, eps, c.postMult, repeat, &post, &comb, &in,
                               nullptr);
  };
  for (int k = 0; k < 2; ++k)
    if (!r.called(call(k)))
      return r;
  for (int o = 0; o < 3; ++o) {
    chain[o].fetch(p);
    fused[0][o].fetch(p);
    fused[1][o].fetch(p);
    r.outMismatches += differing(fused[0][o].host, chain[o].host, elementBytes[o]);
    r.countMismatches += differing(fused[0][o].host, fused[1][o].host, elementBytes[o]);
  }
  // Near the fp64 references (a check of the chain itself, which the unfused operators' own tests bound tighter).
  std::vector<double> post(std::max<int64_t>(1, t * n)), comb(std::max<int64_t>(1, t * n * n));
  std::vector<uint16_t> in(std::max<int64_t>(1, t * h));
  parallelRows(t, [&](int64_t b, int64_t e) { // token by token, the reference's rows are independent
    kernels::mhc::bigFuseReference(x.data() + b * g, fn.data(), scale.data(), base.data(), e - b, n, h, eps, eps, eps,
                                   c.postMult, c.repeat, post.data() + b * n, comb.data() + b * n * n,
                                   in.data() + b * h);
  });
  auto f32At = [](const Out &o, int64_t i) {
    float v;
    std::memcpy(&v, &o.host[4 * i], 4);
    return (double)v;
  };
  for (int64_t i = 0; i < t * n; ++i)
    r.sfMismatches += !(std::fabs(f32At(fused[0][0], i) - post[i]) <= 1e-3 * (1 + std::fabs(post[i])));
  for (int64_t i = 0; i < t * n * n; ++i)
    r.sfMismatches += !(std::fabs(f32At(fused[0][1], i) - comb[i]) <= 1e-3 * (1 + std::fabs(comb[i])));
  for (int64_t i = 0; i < t * h; ++i) {
    uint16_t b;
    std::memcpy(&b, &fused[0][2].host[2 * i], 2);
    const double want = bf16Value(in[i]);
    r.sfMismatches += !(std::fabs(bf16Value(b) - want) <= 1e-2 + 1.6e-2 * std::fabs(want));
  }
  r.bytes = 2.0 * t * g + 4.0 * n3 * g + 4.0 * t * n + 4.0 * t * n * n + 2.0 * t * h;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(0); }, 3, 20);
  return r;
}

CheckResult checkMultilayer(GpuSession *gpu, tk_context ctx, const MultilayerCase &c, bool time) {
  CheckResult r;
  const int64_t t = c.tokens, n = c.streams, h = c.hidden, layers = c.layers, posts = c.posts;
  std::mt19937 rng((uint32_t)(c.seed * 2654435761u + t * 131 + h * 7 + n + layers * 3 + posts));
  std::vector<uint16_t> initial = randnBf16(rng, t * n * h);
  std::vector<std::vector<float>> pre, post, comb;
  std::vector<std::vector<uint16_t>> y;
  for (int64_t l = 0; l < layers; ++l)
    pre.push_back(randn(rng, t * n));
  for (int64_t l = 0; l < posts; ++l) {
    y.push_back(randnBf16(rng, t * h));
    post.push_back(randn(rng, t * n));
    comb.push_back(randn(rng, t * n * n));
  }
  Placement p{gpu};
  tk_tensor tinit = p.tensor(p.put(initial.data(), initial.size() * 2), TK_BF16, {t, n, h});
  std::vector<tk_tensor> tpre, ty, tpost, tcomb;
  for (int64_t l = 0; l < layers; ++l)
    tpre.push_back(p.tensor(p.put(pre[l].data(), pre[l].size() * 4), TK_F32, {t, n}));
  for (int64_t l = 0; l < posts; ++l) {
    ty.push_back(p.tensor(p.put(y[l].data(), y[l].size() * 2), TK_BF16, {t, h}));
    tpost.push_back(p.tensor(p.put(post[l].data(), post[l].size() * 4), TK_F32, {t, n}));
    tcomb.push_back(p.tensor(p.put(comb[l].data(), comb[l].size() * 4), TK_F32, {t, n, n}));
  }
  // Outputs: [0] the chain's, [1] and [2] the fused calls'; layer inputs, then residuals.
  std::vector<Out> outs[3];
  std::vector<tk_tensor> inputs[3], residuals[3];
  for (int k = 0; k < 3; ++k) {
    for (int64_t l = 0; l < layers; ++l)
      outs[k].emplace_back(p, t * h * 2);
    for (int64_t l = 0; l < posts; ++l)
      outs[k].emplace_back(p, t * n * h * 2);
    for (int64_t l = 0; l < layers; ++l)
      inputs[k].push_back(p.tensor(outs[k][l].placed, TK_BF16, {t, h}));
    for (int64_t l = 0; l < posts; ++l)
      residuals[k].push_back(p.tensor(outs[k][layers + l].placed, TK_BF16, {t, n, h}));
  }
  const tk_tensor *from = &tinit;
  for (int64_t l = 0; l < layers; ++l) {
    if (!r.called(tk_mhc_pre_apply_mix_fwd(ctx, from, &tpre[l], &inputs[0][l], nullptr)))
      return r;
    if (l < posts) {
      if (!r.called(tk_mhc_post_fwd(ctx, &ty[l], from, &tpost[l], &tcomb[l], &residuals[0][l], nullptr)))
        return r;
      from = &residuals[0][l];
    }
  }
  auto call = [&](int k) {
    return tk_mhc_multilayer_recompute(ctx, &tinit, (int32_t)layers, tpre.data(), (int32_t)posts, ty.data(),
                                       tpost.data(), tcomb.data(), inputs[k].data(), residuals[k].data(), nullptr);
  };
  for (int k = 1; k < 3; ++k)
    if (!r.called(call(k)))
      return r;
  // The reference, layer by layer on the host.
  std::vector<std::vector<uint16_t>> wantIn(layers, std::vector<uint16_t>(std::max<int64_t>(1, t * h))),
      wantRes(posts, std::vector<uint16_t>(std::max<int64_t>(1, t * n * h)));
  std::vector<const float *> preP, postP, combP;
  std::vector<const uint16_t *> yP;
  std::vector<uint16_t *> inP, resP;
  for (int64_t l = 0; l < layers; ++l)
    preP.push_back(pre[l].data()), inP.push_back(wantIn[l].data());
  for (int64_t l = 0; l < posts; ++l)
    yP.push_back(y[l].data()), postP.push_back(post[l].data()), combP.push_back(comb[l].data()),
        resP.push_back(wantRes[l].data());
  kernels::mhc::multilayerRecomputeReference(initial.data(), preP, yP, postP, combP, t, n, h, inP, resP);
  for (size_t o = 0; o < outs[0].size(); ++o) {
    for (int k = 0; k < 3; ++k)
      outs[k][o].fetch(p);
    const uint16_t *want = (int64_t)o < layers ? wantIn[o].data() : wantRes[o - layers].data();
    std::vector<uint8_t> ref(outs[0][o].host.size());
    std::memcpy(ref.data(), want, ref.size());
    r.outMismatches += differing(outs[1][o].host, outs[0][o].host, 2);
    r.sfMismatches += differing(outs[1][o].host, ref, 2);
    r.countMismatches += differing(outs[1][o].host, outs[2][o].host, 2);
  }
  r.bytes = 2.0 * t * n * h + layers * (4.0 * t * n + 2.0 * t * h) +
            posts * (2.0 * t * h + 4.0 * t * n + 4.0 * t * n * n + 2.0 * t * n * h);
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(1); }, 3, 20);
  return r;
}

} // namespace tk::checks
