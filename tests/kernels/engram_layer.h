// The Engram gate as a trainable layer (mhc_engram.md 2.2): fused_weight,
// engram_gate_fwd with the saved statistics, engram_gate_bwd and
// grad_w_reduce through the C API, on the GPU of `gpu` or the CPU path
// (null). Its gradients of L = sum dout * out with respect to x, k, v,
// weight_hidden and weight_embed are compared with central differences of L
// computed in fp64 from 4.3's math (a model of the layer written here, not
// tk's reference functions), on small shapes.
#pragma once

#include "checks/bf16.h"
#include "checks/gpu_session.h"
#include "tests/kernels/random_values.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace tk::test {

struct EngramLayer {
  int64_t t = 3, n = 4, h = 128, blocks = 2;
  double eps = 1e-20, clamp = 1e-6;
  std::vector<double> x, k, v, wh, we, dout; // bf16 values

  /// L = sum over t, s, d of dout * (x + g v), g = sigmoid(copysign(sqrt(max(|s|, clamp)), s)).
  double loss() const {
    double total = 0;
    for (int64_t tok = 0; tok < t; ++tok)
      for (int64_t s = 0; s < n; ++s) {
        const int64_t at = (tok * n + s) * h;
        double sx = 0, sk = 0, raw = 0;
        for (int64_t d = 0; d < h; ++d)
          sx += x[at + d] * x[at + d], sk += k[at + d] * k[at + d],
              raw += x[at + d] * wh[s * h + d] * we[s * h + d] * k[at + d];
        const double score = raw / std::sqrt(sx / h + eps) / std::sqrt(sk / h + eps) / std::sqrt(double(h));
        const double g = 1 / (1 + std::exp(-std::copysign(std::sqrt(std::max(std::fabs(score), clamp)), score)));
        for (int64_t d = 0; d < h; ++d)
          total += dout[at + d] * (x[at + d] + g * v[tok * h + d]);
      }
    return total;
  }

  /// dL/dp for every element of p, by central differences.
  std::vector<double> numeric(std::vector<double> &p) const {
    return centralDifferences(p, [&] { return loss(); });
  }
};

/// Elements where `got` is off `want` by more than 2^-7 |want| (a bf16 ulp,
/// the gradients are bf16) plus 1e-4 of the tensor's largest |want|.
inline int64_t farOff(const std::vector<double> &got, const std::vector<double> &want) {
  double scale = 0;
  for (double w : want)
    scale = std::max(scale, std::fabs(w));
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    bad += !(std::fabs(got[i] - want[i]) <= std::ldexp(std::fabs(want[i]), -7) + 1e-4 * scale);
  return bad;
}

inline void checkEngramLayerGradients(checks::GpuSession *gpu) {
  EngramLayer m;
  const int64_t t = m.t, n = m.n, h = m.h, rows = t * n;
  std::mt19937 rng(2026);
  std::normal_distribution<float> normal;
  auto draw = [&](int64_t count, std::vector<double> &values) {
    std::vector<uint16_t> bits(count);
    values.resize(count);
    for (int64_t i = 0; i < count; ++i)
      bits[i] = checks::bf16Bits(normal(rng)), values[i] = checks::bf16Value(bits[i]);
    return bits;
  };
  std::vector<uint16_t> bx = draw(rows * h, m.x), bk = draw(rows * h, m.k), bv = draw(t * h, m.v),
                        bh = draw(n * h, m.wh), be = draw(n * h, m.we), bd = draw(rows * h, m.dout);
  checks::Placement p{gpu};
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS) << tk_last_error();
  auto bf16In = [&](std::vector<uint16_t> &b, std::vector<int64_t> shape) {
    return p.tensor(p.put(b.data(), b.size() * 2), TK_BF16, shape);
  };
  tk_tensor x = bf16In(bx, {t, n, h}), k = bf16In(bk, {t, n, h}), v = bf16In(bv, {t, h}), wh = bf16In(bh, {n, h}),
            we = bf16In(be, {n, h}), dout = bf16In(bd, {t, n, h});
  std::vector<float> f32(n * h + 4 * rows + m.blocks * n * h + 2 * n * h, 0.0f);
  std::vector<uint16_t> bf(2 * rows * h + rows * h + t * h); // out, grad_x, grad_k, grad_v
  void *df = p.put(f32.data(), f32.size() * 4), *db = p.poisoned(bf.data(), bf.size() * 2, 0xEE);
  float *fp = static_cast<float *>(df);
  uint16_t *bp = static_cast<uint16_t *>(db);
  tk_tensor wf = p.tensor(fp, TK_F32, {n, h}), stats[4];
  for (int i = 0; i < 4; ++i)
    stats[i] = p.tensor(fp + n * h + i * rows, TK_F32, {t, n});
  float *rest = fp + n * h + 4 * rows;
  tk_tensor partial = p.tensor(rest, TK_F32, {m.blocks, n, h}), gwh = p.tensor(rest + m.blocks * n * h, TK_F32, {n, h}),
            gwe = p.tensor(rest + m.blocks * n * h + n * h, TK_F32, {n, h});
  tk_tensor out = p.tensor(bp, TK_BF16, {t, n, h}), gx = p.tensor(bp + rows * h, TK_BF16, {t, n, h}),
            gk = p.tensor(bp + 2 * rows * h, TK_BF16, {t, n, h}), gv = p.tensor(bp + 3 * rows * h, TK_BF16, {t, h});
  ASSERT_EQ(tk_engram_fused_weight(ctx, &wh, &we, &wf, nullptr), TK_SUCCESS) << tk_last_error();
  ASSERT_EQ(tk_engram_gate_fwd(ctx, &x, &k, &v, &wf, (float)m.eps, (float)m.clamp, &out, &stats[0], &stats[1],
                               &stats[2], &stats[3], nullptr),
            TK_SUCCESS)
      << tk_last_error();
  ASSERT_EQ(tk_engram_gate_bwd(ctx, &dout, &x, &k, &v, &wf, &stats[0], &stats[1], &stats[2], &stats[3], (float)m.clamp,
                               &gx, &gk, &gv, &partial, nullptr),
            TK_SUCCESS)
      << tk_last_error();
  ASSERT_EQ(tk_engram_grad_w_reduce(ctx, &partial, &wh, &we, &gwh, &gwe, nullptr), TK_SUCCESS) << tk_last_error();
  p.get(f32.data(), df, f32.size() * 4);
  p.get(bf.data(), db, bf.size() * 2);
  tk_context_destroy(ctx);
  auto bf16At = [&](int64_t from, int64_t count) {
    std::vector<double> g(count);
    for (int64_t i = 0; i < count; ++i)
      g[i] = checks::bf16Value(bf[from + i]);
    return g;
  };
  const float *gw = f32.data() + n * h + 4 * rows + m.blocks * n * h;
  const std::vector<double> gotWh(gw, gw + n * h), gotWe(gw + n * h, gw + 2 * n * h);
  struct {
    const char *name;
    std::vector<double> got, want;
  } grads[] = {{"grad_x", bf16At(rows * h, rows * h), m.numeric(m.x)},
               {"grad_k", bf16At(2 * rows * h, rows * h), m.numeric(m.k)},
               {"grad_v", bf16At(3 * rows * h, t * h), m.numeric(m.v)},
               {"grad_weight_hidden", gotWh, m.numeric(m.wh)},
               {"grad_weight_embed", gotWe, m.numeric(m.we)}};
  for (auto &g : grads) {
    double largest = 0;
    for (double w : g.want)
      largest = std::max(largest, std::fabs(w));
    EXPECT_GT(largest, 0.0) << g.name << ": the finite differences are all zero, nothing is checked";
    EXPECT_EQ(farOff(g.got, g.want), 0) << g.name << " differs from the finite differences";
  }
}

} // namespace tk::test
