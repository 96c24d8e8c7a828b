// One mHC sublayer trained as a layer (mhc_engram.md 2.1): mhc_pre_norm_fn
// (with a norm weight), mhc_pre_split_mixes, sinkhorn_normalize,
// mhc_pre_apply_mix, a sublayer F = identity, mhc_post; then the backward in
// reverse with the fused residual-gradient protocol: mhc_post_bwd starts the
// residual's gradient buffer, mhc_pre_apply_mix_bwd and mhc_pre_norm_fn_bwd add
// into it in place (accumulate = 1). All through the C API, on the GPU of
// `gpu` or the CPU path (null). The gradients of L = sum dout * R1 with
// respect to R0, fn, the norm weight, scale and base are compared with
// central differences of L computed in fp64 from 2.1's math (a model written
// here, not tk's reference functions), on small shapes.
#pragma once

#include "checks/bf16.h"
#include "checks/gpu_session.h"
#include "tests/kernels/random_values.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace tk::test {

struct MhcLayer {
  int64_t t = 3, n = 4, h = 16, repeat = 3;
  double normEps = 1e-6, preEps = 1e-2, postMult = 2.0, sinkEps = 1e-6;
  std::vector<double> r0, fn, w, scale, base, dout; // r0, dout: bf16 values
  int64_t g() const { return n * h; }
  int64_t n3() const { return 2 * n + n * n; }

  static double sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

  /// 3.4 in fp64 on one n x n matrix (row-major, r then c).
  std::vector<double> sinkhorn(std::vector<double> x) const {
    for (int64_t r = 0; r < n; ++r) {
      double mx = x[r * n], sum = 0;
      for (int64_t c = 1; c < n; ++c)
        mx = std::max(mx, x[r * n + c]);
      for (int64_t c = 0; c < n; ++c)
        sum += x[r * n + c] = std::exp(x[r * n + c] - mx);
      for (int64_t c = 0; c < n; ++c)
        x[r * n + c] = x[r * n + c] / sum + sinkEps;
    }
    auto columns = [&] {
      for (int64_t c = 0; c < n; ++c) {
        double s = 0;
        for (int64_t r = 0; r < n; ++r)
          s += x[r * n + c];
        for (int64_t r = 0; r < n; ++r)
          x[r * n + c] /= s + sinkEps;
      }
    };
    auto rows = [&] {
      for (int64_t r = 0; r < n; ++r) {
        double s = 0;
        for (int64_t c = 0; c < n; ++c)
          s += x[r * n + c];
        for (int64_t c = 0; c < n; ++c)
          x[r * n + c] /= s + sinkEps;
      }
    };
    columns();
    for (int64_t i = 1; i < repeat; ++i)
      rows(), columns();
    return x;
  }

  double loss() const {
    const int64_t gw = g(), m = n3();
    double total = 0;
    for (int64_t tok = 0; tok < t; ++tok) {
      const double *x = &r0[tok * gw];
      double ss = 0;
      for (int64_t k = 0; k < gw; ++k)
        ss += x[k] * x[k];
      const double r = 1 / std::sqrt(ss / gw + normEps);
      std::vector<double> z(m);
      for (int64_t j = 0; j < m; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < gw; ++k)
          acc += x[k] * fn[j * gw + k] * w[k];
        z[j] = acc * r * scale[j < n ? 0 : j < 2 * n ? 1 : 2] + base[j];
      }
      std::vector<double> comb = sinkhorn(std::vector<double>(z.begin() + 2 * n, z.end()));
      for (int64_t d = 0; d < h; ++d) {
        double y = 0; // F = identity: the layer output is its input
        for (int64_t s = 0; s < n; ++s)
          y += (sigmoid(z[s]) + preEps) * x[s * h + d];
        for (int64_t o = 0; o < n; ++o) {
          double out = postMult * sigmoid(z[n + o]) * y;
          for (int64_t i = 0; i < n; ++i)
            out += comb[i * n + o] * x[i * h + d];
          total += dout[(tok * n + o) * h + d] * out;
        }
      }
    }
    return total;
  }

  /// dL/dp for every element of p, by central differences.
  std::vector<double> numeric(std::vector<double> &p) const {
    return centralDifferences(p, [&] { return loss(); });
  }
};

/// Elements where `got` is off `want` by more than 2^-ulpBits |want| plus
/// 1e-3 of the tensor's largest |want|: the forward's layer input and output
/// are bf16 (2^-9 each) and the residual's gradient went through three bf16
/// roundings, where the model rounds nothing.
inline int64_t farOffLayer(const std::vector<double> &got, const std::vector<double> &want, int ulpBits) {
  double scale = 0;
  for (double v : want)
    scale = std::max(scale, std::fabs(v));
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    bad += !(std::fabs(got[i] - want[i]) <= std::ldexp(std::fabs(want[i]), -ulpBits) + 1e-3 * scale);
  return bad;
}

inline void checkMhcLayerGradients(checks::GpuSession *gpu) {
  MhcLayer md;
  const int64_t t = md.t, n = md.n, h = md.h, gw = md.g(), m = md.n3();
  std::mt19937 rng(2027);
  std::normal_distribution<float> normal;
  auto bf16Draw = [&](int64_t count, std::vector<double> &values) {
    std::vector<uint16_t> bits(count);
    values.resize(count);
    for (int64_t i = 0; i < count; ++i)
      bits[i] = checks::bf16Bits(normal(rng)), values[i] = checks::bf16Value(bits[i]);
    return bits;
  };
  auto f32Draw = [&](int64_t count, double sd, double mean, std::vector<double> &values) {
    std::vector<float> f(count);
    values.resize(count);
    for (int64_t i = 0; i < count; ++i)
      f[i] = (float)(normal(rng) * sd + mean), values[i] = f[i];
    return f;
  };
  std::vector<uint16_t> br0 = bf16Draw(t * gw, md.r0), bdout = bf16Draw(t * gw, md.dout);
  std::vector<float> ffn = f32Draw(m * gw, 0.05, 0, md.fn), fw = f32Draw(gw, 0.1, 1, md.w),
                     fs = f32Draw(3, 0.5, 0, md.scale), fb = f32Draw(m, 0.5, 0, md.base);
  checks::Placement p{gpu};
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS) << tk_last_error();
  auto in = [&](void *host, size_t bytes, tk_dtype type, std::vector<int64_t> shape) {
    return p.tensor(p.put(host, bytes), type, shape);
  };
  tk_tensor r0 = in(br0.data(), br0.size() * 2, TK_BF16, {t, n, h}),
            dout = in(bdout.data(), bdout.size() * 2, TK_BF16, {t, n, h}),
            fn = in(ffn.data(), ffn.size() * 4, TK_F32, {m, gw}), w = in(fw.data(), fw.size() * 4, TK_F32, {gw}),
            scale = in(fs.data(), 12, TK_F32, {3}), base = in(fb.data(), fb.size() * 4, TK_F32, {m});
  // Intermediates and gradients: f32 then bf16 buffers, each a slice.
  std::vector<float> f32(16 * t * m + t + m * gw + gw + 3 + m + 16 * 4, 0.0f); // with each slice's padding
  std::vector<uint16_t> b16(4 * t * gw + 4 * 8, 0);
  float *fp = static_cast<float *>(p.put(f32.data(), f32.size() * 4));
  uint16_t *bp = static_cast<uint16_t *>(p.put(b16.data(), b16.size() * 2));
  int64_t fAt = 0, bAt = 0;
  auto f32T = [&](std::vector<int64_t> shape) {
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    tk_tensor v = p.tensor(fp + fAt, TK_F32, shape);
    fAt += (count + 3) / 4 * 4; // every slice 16-byte aligned, as norm_fn's tensors must be
    return v;
  };
  auto b16T = [&](std::vector<int64_t> shape) {
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    tk_tensor v = p.tensor(bp + bAt, TK_BF16, shape);
    bAt += (count + 7) / 8 * 8;
    return v;
  };
  tk_tensor mix = f32T({t, m}), mul = f32T({t, m}), ss = f32T({t}), pre = f32T({t, n}), post = f32T({t, n}),
            logits = f32T({t, n, n}), comb = f32T({t, n, n}), dpost = f32T({t, n}), dcomb = f32T({t, n, n}),
            dpre = f32T({t, n}), dlogits = f32T({t, n, n}), dmix = f32T({t, m}), dfn = f32T({m, gw}), dw = f32T({gw}),
            dscale = f32T({3}), dbase = f32T({m});
  tk_tensor xin = b16T({t, h}), r1 = b16T({t, n, h}), dy = b16T({t, h}), dres = b16T({t, n, h});
  const float pe = (float)md.preEps, pm = (float)md.postMult, se = (float)md.sinkEps, ne = (float)md.normEps;
  const int32_t rep = (int32_t)md.repeat;
  auto ok = [&](tk_status s) { EXPECT_EQ(s, TK_SUCCESS) << tk_last_error(); };
  ok(tk_mhc_pre_norm_fn_fwd(ctx, &r0, &fn, &w, ne, &mix, &mul, &ss, nullptr));
  ok(tk_mhc_pre_split_mixes_fwd(ctx, &mix, &scale, &base, pm, pe, &pre, &post, &logits, nullptr));
  ok(tk_sinkhorn_normalize_fwd(ctx, &logits, rep, se, &comb, nullptr));
  ok(tk_mhc_pre_apply_mix_fwd(ctx, &r0, &pre, &xin, nullptr));
  ok(tk_mhc_post_fwd(ctx, &xin, &r0, &post, &comb, &r1, nullptr)); // F = identity: y = x_in
  // Backward: post starts the residual's gradient, apply_mix and norm_fn add into it.
  ok(tk_mhc_post_bwd(ctx, &dout, &xin, &r0, &post, &comb, &dy, &dres, &dpost, &dcomb, nullptr));
  ok(tk_mhc_pre_apply_mix_bwd(ctx, &dy, &r0, &pre, 1, &dres, &dpre, nullptr));
  ok(tk_sinkhorn_normalize_bwd(ctx, &dcomb, &logits, rep, se, &dlogits, nullptr));
  ok(tk_mhc_pre_split_mixes_bwd(ctx, &dpre, &dpost, &dlogits, &mix, &post, &scale, &base, pm, &dmix, &dscale, &dbase,
                                nullptr));
  ok(tk_mhc_pre_norm_fn_bwd(ctx, &dmix, &r0, &fn, &w, &mul, &ss, ne, 1, &dres, &dfn, &dw, nullptr));
  p.get(f32.data(), fp, f32.size() * 4);
  p.get(b16.data(), bp, b16.size() * 2);
  tk_context_destroy(ctx);
  if (::testing::Test::HasFailure())
    return; // a call failed: its outputs are not there to compare
  auto f32At = [&](const tk_tensor &v, int64_t count) {
    const float *from = f32.data() + (static_cast<const float *>(v.data) - fp);
    return std::vector<double>(from, from + count);
  };
  std::vector<double> gotRes(t * gw);
  const int64_t resAt = static_cast<const uint16_t *>(dres.data) - bp;
  for (int64_t i = 0; i < t * gw; ++i)
    gotRes[i] = checks::bf16Value(b16[resAt + i]);
  struct {
    const char *name;
    std::vector<double> got, want;
    int ulpBits;
  } grads[] = {{"grad residual (three contributions)", gotRes, md.numeric(md.r0), 7},
               {"grad fn", f32At(dfn, m * gw), md.numeric(md.fn), 8},
               {"grad norm_weight", f32At(dw, gw), md.numeric(md.w), 8},
               {"grad scale", f32At(dscale, 3), md.numeric(md.scale), 8},
               {"grad base", f32At(dbase, m), md.numeric(md.base), 8}};
  for (auto &gr : grads) {
    double largest = 0;
    for (double v : gr.want)
      largest = std::max(largest, std::fabs(v));
    EXPECT_GT(largest, 0.0) << gr.name << ": the finite differences are all zero, nothing is checked";
    EXPECT_EQ(farOffLayer(gr.got, gr.want, gr.ulpBits), 0) << gr.name << " differs from the finite differences";
  }
}

} // namespace tk::test
