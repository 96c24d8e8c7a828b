//===- mix_gates_check.cpp ------------------------------------------------===//
#include "checks/mix_gates_check.h"
#include "checks/two_calls.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace tk::checks {

using kernels::mhc::MixGateKind;
using kernels::mhc::MixGroup;

std::string describe(const MixGateCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.streams) +
         (c.rowStride ? " stride=" + std::to_string(c.rowStride) : "");
}

CheckResult checkMixGate(GpuSession *gpu, tk_context ctx, const MixGateCase &c, bool time) {
  CheckResult r;
  const MixGateKind kind = c.kind;
  const int64_t t = c.tokens, n = c.streams, m = kernels::mhc::mixColumns(kind, n);
  const int64_t stride = c.rowStride ? c.rowStride : m;
  const std::vector<MixGroup> groups = kernels::mhc::mixGroups(kind, n);
  const int64_t numGroups = (int64_t)groups.size();
  const float postMult = 2.0f, preEps = 1e-2f;
  std::mt19937 rng((uint32_t)(c.seed * 2654435761u + t * 131 + n * 7 + stride + c.backward + 3 * (int)kind));
  std::normal_distribution<float> normal;
  auto randn = [&](int64_t count) {
    std::vector<float> v(std::max<int64_t>(1, count));
    for (float &x : v)
      x = normal(rng);
    return v;
  };
  std::vector<float> input = randn(t * stride), scale = randn(numGroups), base = randn(m);
  std::vector<float> dense(std::max<int64_t>(1, t * m)); // the logits without the stride, for the references
  for (int64_t i = 0; i < t; ++i)
    std::copy_n(&input[i * stride], m, &dense[i * m]);

  // The forward's outputs in fp64 (the backward's post is their f32 value).
  std::vector<std::vector<double>> fwd;
  std::vector<double *> fwdPtrs;
  for (const MixGroup &g : groups)
    fwd.emplace_back(std::max<int64_t>(1, t * g.width));
  for (auto &v : fwd)
    fwdPtrs.push_back(v.data());
  kernels::mhc::mixGateForwardReference(kind, dense.data(), t, n, scale.data(), base.data(), postMult, preEps, fwdPtrs);
  std::vector<std::vector<float>> grads;
  std::vector<float> post;
  std::vector<std::vector<double>> want;      // every output's reference, in the call's output order
  std::vector<std::vector<double>> magnitude; // per output: the fp32 sums' error scale (0: none)
  if (!c.backward) {
    want = fwd;
    magnitude.assign(want.size(), {});
  } else {
    std::vector<const float *> gradPtrs;
    for (const MixGroup &g : groups)
      grads.push_back(randn(t * g.width));
    for (auto &g : grads)
      gradPtrs.push_back(g.data());
    if (kind == MixGateKind::Split) {
      post.resize(std::max<int64_t>(1, t * n));
      for (int64_t i = 0; i < t * n; ++i)
        post[i] = (float)fwd[1][i];
    }
    want = {std::vector<double>(std::max<int64_t>(1, t * m)), std::vector<double>(numGroups), std::vector<double>(m)};
    kernels::mhc::mixGateBackwardReference(kind, gradPtrs, dense.data(), post.data(), t, n, scale.data(), base.data(),
                                           postMult, want[0].data(), want[1].data(), want[2].data());
    // |dz| = |grad_input / scale|: the sums' terms' magnitudes.
    magnitude = {{}, std::vector<double>(numGroups), std::vector<double>(m)};
    for (int64_t i = 0; i < t; ++i)
      for (int64_t g = 0; g < numGroups; ++g)
        for (int64_t j = 0; j < groups[g].width; ++j) {
          const int64_t col = groups[g].offset + j;
          const double dz = std::fabs(want[0][i * m + col] / scale[g]);
          magnitude[2][col] += dz;
          magnitude[1][g] += dz * std::fabs(dense[i * m + col]);
        }
  }
  // Output shapes as the entry point takes them.
  std::vector<std::vector<int64_t>> shapes;
  if (!c.backward) {
    for (const MixGroup &g : groups)
      shapes.push_back(g.activation == MixGroup::Comb ? std::vector<int64_t>{t, n, n}
                                                      : std::vector<int64_t>{t, g.width});
  } else {
    shapes = {{t, m}, {numGroups}, {m}};
  }
  Placement p{gpu};
  tk_tensor tin = p.tensor(p.put(input.data(), input.size() * 4), TK_F32, {t, m}, {stride, 1});
  tk_tensor ts = p.tensor(p.put(scale.data(), scale.size() * 4), TK_F32, {numGroups});
  tk_tensor tb = p.tensor(p.put(base.data(), base.size() * 4), TK_F32, {m});
  std::vector<tk_tensor> tgrads;
  for (size_t g = 0; g < grads.size(); ++g)
    tgrads.push_back(p.tensor(p.put(grads[g].data(), grads[g].size() * 4), TK_F32,
                              groups[g].activation == MixGroup::Comb ? std::vector<int64_t>{t, n, n}
                                                                     : std::vector<int64_t>{t, groups[g].width}));
  tk_tensor tpost = post.empty() ? tk_tensor{} : p.tensor(p.put(post.data(), post.size() * 4), TK_F32, {t, n});
  const double atol = kind == MixGateKind::Split ? 2e-5 : 1e-5, rtol = kind == MixGateKind::Split ? 1e-5 : 1e-4;
  std::vector<CheckedOutput> outputs;
  for (size_t o = 0; o < shapes.size(); ++o) {
    // A parameter gradient sums T terms in f32: within 1e-6 of their magnitudes as well.
    std::vector<double> sums = magnitude[o];
    Near near = [atol, rtol, sums](int64_t i, double want, double got) {
      const double tol = atol + rtol * std::fabs(want);
      return std::fabs(got - want) <= (sums.empty() ? tol : std::max(tol, 1e-6 * sums[i]));
    };
    outputs.push_back({shapes[o], TK_F32, want[o], near});
  }
  TwoCalls calls(p, std::move(outputs));
  auto call = [&](const std::vector<tk_tensor> &outs) {
    std::vector<tk_tensor> o = outs;
    if (kind == MixGateKind::Split)
      return c.backward
                 ? tk_mhc_pre_split_mixes_bwd(ctx, &tgrads[0], &tgrads[1], &tgrads[2], &tin, &tpost, &ts, &tb, postMult,
                                              &o[0], &o[1], &o[2], nullptr)
                 : tk_mhc_pre_split_mixes_fwd(ctx, &tin, &ts, &tb, postMult, preEps, &o[0], &o[1], &o[2], nullptr);
    return c.backward ? tk_mhc_head_compute_mix_bwd(ctx, &tgrads[0], &tin, &ts, &tb, &o[0], &o[1], &o[2], nullptr)
                      : tk_mhc_head_compute_mix_fwd(ctx, &tin, &ts, &tb, preEps, &o[0], nullptr);
  };
  if (!calls.run(r, call))
    return r;
  const double cols = (double)m;
  if (kind == MixGateKind::Split)
    r.bytes = c.backward ? 4.0 * t * (cols + cols + n) + 4.0 * t * cols : 8.0 * t * cols;
  else
    r.bytes = (c.backward ? 12.0 : 8.0) * t * n;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(calls.first()); }, 3, 20);
  return r;
}

} // namespace tk::checks
