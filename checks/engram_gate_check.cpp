//===- engram_gate_check.cpp ----------------------------------------------===//
#include "checks/engram_gate_check.h"
#include "checks/bf16.h"
#include "checks/parallel_slices.h"
#include "kernels/engram/gate_backward.h"
#include "kernels/engram/gate_forward.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const GateForwardCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.streams) + "x" + std::to_string(c.hidden) +
         (c.save ? " save" : " nosave") + (c.strided ? " strided" : "");
}

std::string describe(const GateBackwardCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.streams) + "x" + std::to_string(c.hidden) +
         " P=" + std::to_string(c.blocks) + (c.strided ? " strided" : "");
}

std::string describe(const GradWReduceCase &c) {
  return std::to_string(c.blocks) + "x" + std::to_string(c.streams) + "x" + std::to_string(c.hidden);
}

namespace {
/// Bf16 elements of a (rows, cols) tensor with row stride `ld` (padding
/// filled with a value no check expects), and their f32 values packed. The
/// draws come from a table of 65536 randn values indexed by a 64-bit mix of
/// the seed and the position: normal enough for a test, and fast enough for
/// the spec's 8001x4x7168 tensors (std::normal_distribution took seconds).
struct Bf16Rows {
  std::vector<uint16_t> bits;
  std::vector<float> values;
  Bf16Rows(int64_t rows, int64_t cols, int64_t ld, std::mt19937 &rng)
      : bits(std::max<int64_t>(1, rows * ld), bf16Bits(1e30f)), values(rows * cols) {
    std::normal_distribution<float> normal;
    std::vector<uint16_t> table(65536);
    for (uint16_t &b : table)
      b = bf16Bits(normal(rng));
    const uint64_t seed = ((uint64_t)rng() << 32) | rng();
    parallelRows(rows, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          uint64_t z = seed + (uint64_t)(r * cols + c) * 0x9E3779B97F4A7C15ull; // splitmix64
          z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
          z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
          bits[r * ld + c] = table[(z ^ (z >> 31)) & 0xFFFF];
          values[r * cols + c] = bf16Value(bits[r * ld + c]);
        }
    });
  }
};
} // namespace

CheckResult checkGateForward(GpuSession *gpu, tk_context ctx, const GateForwardCase &c, bool time) {
  CheckResult r;
  const int64_t t = c.tokens, n = c.streams, h = c.hidden, rows = t * n;
  const int64_t ldK = c.strided ? h + 64 : h, ldV = c.strided ? h + 136 : h; // in elements, multiples of 8
  std::mt19937 rng((uint32_t)(c.seed * 2654435761u + rows * 31 + h));
  Bf16Rows x(rows, h, h, rng), k(rows, h, ldK, rng), v(t, h, ldV, rng), wh(n, h, h, rng), we(n, h, h, rng);
  std::vector<float> wf(n * h);
  for (int64_t i = 0; i < n * h; ++i)
    wf[i] = wh.values[i] * we.values[i];
  const float eps = 1e-20f, clamp = 1e-6f;
  std::vector<double> want(rows * h), dot(rows), gate(rows), rx(rows), rk(rows), mag(rows);
  parallelRows(t, [&](int64_t begin, int64_t end) { // token by token, the reference's rows are independent
    const int64_t at = begin * n;
    kernels::engram::gateForwardReference(x.values.data() + at * h, k.values.data() + at * h,
                                          v.values.data() + begin * h, wf.data(), end - begin, n, h, eps, clamp,
                                          want.data() + at * h, dot.data() + at, gate.data() + at, rx.data() + at,
                                          rk.data() + at, mag.data() + at);
  });
  Placement p{gpu};
  std::vector<uint16_t> out(std::max<int64_t>(1, rows * h)), outNoSave(out.size());
  std::vector<float> stats(4 * std::max<int64_t>(1, rows));
  void *dx = p.put(x.bits.data(), x.bits.size() * 2), *dk = p.put(k.bits.data(), k.bits.size() * 2),
       *dv = p.put(v.bits.data(), v.bits.size() * 2), *dw = p.put(wf.data(), std::max<int64_t>(1, n * h) * 4),
       *dout = p.poisoned(out.data(), out.size() * 2, 0xEE),
       *dout2 = p.poisoned(outNoSave.data(), out.size() * 2, 0xEE),
       *dstats = p.poisoned(stats.data(), stats.size() * 4, 0xEE);
  tk_tensor tx = p.tensor(dx, TK_BF16, {t, n, h}), tk_ = p.tensor(dk, TK_BF16, {t, n, h}, {n * ldK, ldK, 1}),
            tv = p.tensor(dv, TK_BF16, {t, h}, {ldV, 1}), tw = p.tensor(dw, TK_F32, {n, h}),
            tout = p.tensor(dout, TK_BF16, {t, n, h}), tout2 = p.tensor(dout2, TK_BF16, {t, n, h});
  tk_tensor ts[4];
  for (int i = 0; i < 4; ++i)
    ts[i] = p.tensor(static_cast<float *>(dstats) + i * std::max<int64_t>(1, rows), TK_F32, {t, n});
  auto save = [&] {
    return tk_engram_gate_fwd(ctx, &tx, &tk_, &tv, &tw, eps, clamp, &tout, &ts[0], &ts[1], &ts[2], &ts[3], nullptr);
  };
  auto noSave = [&] {
    return tk_engram_gate_fwd(ctx, &tx, &tk_, &tv, &tw, eps, clamp, &tout2, nullptr, nullptr, nullptr, nullptr,
                              nullptr);
  };
  if (!r.called(save()) || !r.called(noSave()))
    return r;
  p.get(out.data(), dout, out.size() * 2);
  p.get(outNoSave.data(), dout2, out.size() * 2);
  p.get(stats.data(), dstats, stats.size() * 4);
  // Per row: how far the dot may be from the fp64 one (fp32 sums in another
  // order), carried through s, the square root (steepest at the clamp) and
  // the sigmoid (slope at most 1/4) to the gate.
  std::vector<double> gateErr(rows);
  const float *gDot = stats.data(), *gGate = gDot + std::max<int64_t>(1, rows),
              *gRx = gGate + std::max<int64_t>(1, rows), *gRk = gRx + std::max<int64_t>(1, rows);
  for (int64_t i = 0; i < rows; ++i) {
    const double dotErr = 1e-5 * mag[i] + 1e-30;
    const double sErr = dotErr * rx[i] * rk[i] / std::sqrt(double(h)) * 1.001;
    const double s = dot[i] * rx[i] * rk[i] / std::sqrt(double(h));
    gateErr[i] = 0.25 * sErr / (2 * std::sqrt(std::max<double>(std::fabs(s) - sErr, clamp))) + 1e-6;
    r.sfMismatches += !(std::fabs(gDot[i] - dot[i]) <= dotErr) + !(std::fabs(gGate[i] - gate[i]) <= gateErr[i]) +
                      !(std::fabs(gRx[i] - rx[i]) <= 1e-5 * rx[i]) + !(std::fabs(gRk[i] - rk[i]) <= 1e-5 * rk[i]);
  }
  for (int64_t i = 0; i < rows * h; ++i) {
    // One bf16 ulp, plus what fp32 leaves where x and g v cancel: their
    // roundings and the gate's error times v.
    const double got = bf16Value(out[i]), xv = x.values[i], vv = v.values[(i / h / n) * h + i % h];
    const double tol = std::ldexp(std::fabs(want[i]), -7) +
                       std::ldexp(std::fabs(xv) + std::fabs(gate[i / h] * vv), -22) + gateErr[i / h] * std::fabs(vv);
    r.outMismatches += !(std::fabs(got - want[i]) <= tol);
    r.countMismatches += out[i] != outNoSave[i];
  }
  r.bytes = 2.0 * rows * h * 3 + 2.0 * t * h + 4.0 * n * h + (c.save ? 16.0 * rows : 0.0);
  if (gpu && time)
    r.ms = gpu->medianMs([&] { c.save ? save() : noSave(); }, 3, 20);
  return r;
}

CheckResult checkGateBackward(GpuSession *gpu, tk_context ctx, const GateBackwardCase &c, bool time) {
  CheckResult r;
  const int64_t t = c.tokens, n = c.streams, h = c.hidden, rows = t * n, blocks = c.blocks;
  const int64_t ldK = c.strided ? h + 64 : h, ldV = c.strided ? h + 136 : h;
  std::mt19937 rng((uint32_t)(c.seed * 2246822519u + rows * 37 + h));
  Bf16Rows dout(rows, h, h, rng), x(rows, h, h, rng), k(rows, h, ldK, rng), v(t, h, ldV, rng), wh(n, h, h, rng),
      we(n, h, h, rng);
  std::vector<float> wf(n * h);
  for (int64_t i = 0; i < n * h; ++i)
    wf[i] = wh.values[i] * we.values[i];
  const float eps = 1e-20f, clamp = 1e-6f;
  // The forward's statistics as it saves them (f32), from the fp64 reference.
  const int64_t statRows = std::max<int64_t>(1, rows);
  std::vector<float> stats(4 * statRows);
  float *dot = stats.data(), *gate = dot + statRows, *rx = gate + statRows, *rk = rx + statRows;
  parallelRows(t, [&](int64_t begin, int64_t end) {
    const int64_t m = (end - begin) * n, at = begin * n;
    std::vector<double> d(m), g(m), a(m), b(m), mag(m);
    kernels::engram::gateForwardReference(x.values.data() + at * h, k.values.data() + at * h,
                                          v.values.data() + begin * h, wf.data(), end - begin, n, h, eps, clamp,
                                          /*out=*/nullptr, d.data(), g.data(), a.data(), b.data(), mag.data());
    for (int64_t i = 0; i < m; ++i)
      dot[at + i] = (float)d[i], gate[at + i] = (float)g[i], rx[at + i] = (float)a[i], rk[at + i] = (float)b[i];
  });
  // The reference block by block (each block's tokens are one partial row),
  // with the magnitudes the tolerances need.
  const int64_t perBlock = (t + blocks - 1) / blocks;
  std::vector<double> gx(rows * h), gk(rows * h), gv(t * h), rho(rows), part(blocks * n * h);
  std::vector<double> rhoErr(rows), partTol(blocks * n * h, 0.0);
  parallelRows(blocks, [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      const int64_t t0 = std::min(t, p * perBlock), t1 = std::min(t, t0 + perBlock), at = t0 * n;
      kernels::engram::gateBackwardReference(
          dout.values.data() + at * h, x.values.data() + at * h, k.values.data() + at * h, v.values.data() + t0 * h,
          wf.data(), dot + at, gate + at, rx + at, rk + at, t1 - t0, n, h, 1, clamp, gx.data() + at * h,
          gk.data() + at * h, gv.data() + t0 * h, rho.data() + at, part.data() + p * n * h);
      for (int64_t i = at; i < t1 * n; ++i) {
        const int64_t tok = i / n;
        double dgMag = 0;
        for (int64_t d = 0; d < h; ++d)
          dgMag += std::fabs(double(dout.values[i * h + d]) * v.values[tok * h + d]);
        // rho / dg where the clamp does not hold: dg's fp32 error carried through it.
        const double coef = rho[i] == 0
                                ? 0.0
                                : double(gate[i]) * (1 - gate[i]) * 0.5 *
                                      std::sqrt(double(rx[i]) * rk[i] / std::sqrt(double(h)) / std::fabs(dot[i]));
        rhoErr[i] = coef * 1e-5 * dgMag + 1e-5 * std::fabs(rho[i]);
        for (int64_t d = 0; d < h; ++d) {
          const double xk = std::fabs(double(x.values[i * h + d]) * k.values[i * h + d]);
          partTol[(p * n + i % n) * h + d] += rhoErr[i] * xk + (perBlock + 2) * 0x1p-23 * std::fabs(rho[i]) * xk;
        }
      }
    }
  });
  Placement pl{gpu};
  const int64_t big = (std::max<int64_t>(1, rows * h) + 7) / 8 * 8; // each gradient 16-byte aligned
  std::vector<uint16_t> grads(3 * big + std::max<int64_t>(1, t * h)), again(grads.size());
  std::vector<float> partial(std::max<int64_t>(1, blocks * n * h)), partialAgain(partial.size());
  void *dd = pl.put(dout.bits.data(), dout.bits.size() * 2), *dx = pl.put(x.bits.data(), x.bits.size() * 2),
       *dk = pl.put(k.bits.data(), k.bits.size() * 2), *dv = pl.put(v.bits.data(), v.bits.size() * 2),
       *dw = pl.put(wf.data(), std::max<int64_t>(1, n * h) * 4), *ds = pl.put(stats.data(), stats.size() * 4);
  void *dg1 = pl.poisoned(grads.data(), grads.size() * 2, 0xEE),
       *dg2 = pl.poisoned(again.data(), again.size() * 2, 0xEE),
       *dp1 = pl.poisoned(partial.data(), partial.size() * 4, 0xEE),
       *dp2 = pl.poisoned(partialAgain.data(), partial.size() * 4, 0xEE);
  tk_tensor td = pl.tensor(dd, TK_BF16, {t, n, h}), tx = pl.tensor(dx, TK_BF16, {t, n, h}),
            tk_ = pl.tensor(dk, TK_BF16, {t, n, h}, {n * ldK, ldK, 1}), tv = pl.tensor(dv, TK_BF16, {t, h}, {ldV, 1}),
            tw = pl.tensor(dw, TK_F32, {n, h}), ts[4];
  for (int i = 0; i < 4; ++i)
    ts[i] = pl.tensor(static_cast<float *>(ds) + i * statRows, TK_F32, {t, n});
  auto outputs = [&](void *g, void *p) {
    uint16_t *b = static_cast<uint16_t *>(g);
    return std::vector<tk_tensor>{pl.tensor(b, TK_BF16, {t, n, h}), pl.tensor(b + big, TK_BF16, {t, n, h}),
                                  pl.tensor(b + 2 * big, TK_BF16, {t, h}), pl.tensor(p, TK_F32, {blocks, n, h})};
  };
  std::vector<tk_tensor> o1 = outputs(dg1, dp1), o2 = outputs(dg2, dp2);
  auto call = [&](std::vector<tk_tensor> &o) {
    return tk_engram_gate_bwd(ctx, &td, &tx, &tk_, &tv, &tw, &ts[0], &ts[1], &ts[2], &ts[3], clamp, &o[0], &o[1], &o[2],
                              &o[3], nullptr);
  };
  if (!r.called(call(o1)) || !r.called(call(o2)))
    return r;
  pl.get(grads.data(), dg1, grads.size() * 2);
  pl.get(again.data(), dg2, grads.size() * 2);
  pl.get(partial.data(), dp1, partial.size() * 4);
  pl.get(partialAgain.data(), dp2, partial.size() * 4);
  for (int64_t i = 0; i < rows * h; ++i) {
    const int64_t row = i / h;
    const double xv = x.values[i], kv = k.values[i], w = wf[(row % n) * h + i % h];
    const double ax = double(dot[row]) * rx[row] * rx[row] / h, ak = double(dot[row]) * rk[row] * rk[row] / h;
    const double pathX = std::fabs(kv * w) + std::fabs(xv * ax), pathK = std::fabs(xv * w) + std::fabs(kv * ak);
    const double tolX = std::ldexp(std::fabs(gx[i]), -7) + rhoErr[row] * pathX +
                        0x1p-20 * (std::fabs(dout.values[i]) + std::fabs(rho[row]) * pathX);
    const double tolK = std::ldexp(std::fabs(gk[i]), -7) + (rhoErr[row] + 0x1p-20 * std::fabs(rho[row])) * pathK;
    r.outMismatches +=
        !(std::fabs(bf16Value(grads[i]) - gx[i]) <= tolX) + !(std::fabs(bf16Value(grads[big + i]) - gk[i]) <= tolK);
  }
  for (int64_t i = 0; i < t * h; ++i) {
    double mag = 0;
    for (int64_t s = 0; s < n; ++s)
      mag += std::fabs(double(dout.values[((i / h) * n + s) * h + i % h]) * gate[(i / h) * n + s]);
    r.outMismatches +=
        !(std::fabs(bf16Value(grads[2 * big + i]) - gv[i]) <= std::ldexp(std::fabs(gv[i]), -7) + 0x1p-20 * mag);
  }
  for (int64_t i = 0; i < blocks * n * h; ++i)
    r.sfMismatches += !(std::fabs(partial[i] - part[i]) <= partTol[i]);
  r.countMismatches = (std::memcmp(grads.data(), again.data(), grads.size() * 2) != 0) +
                      (std::memcmp(partial.data(), partialAgain.data(), partial.size() * 4) != 0);
  r.digest = digestBytes(partial.data(), partial.size() * 4, digestBytes(grads.data(), grads.size() * 2));
  r.bytes = 2.0 * rows * h * 5 + 4.0 * t * h + 4.0 * n * h + 16.0 * rows + 4.0 * blocks * n * h;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(o1); }, 3, 20);
  return r;
}

CheckResult checkGradWReduce(GpuSession *gpu, tk_context ctx, const GradWReduceCase &c, bool time) {
  CheckResult r;
  const int64_t p = c.blocks, cols = c.streams * c.hidden;
  std::mt19937 rng((uint32_t)(c.seed * 2654435761u + p * 977 + cols));
  std::normal_distribution<float> normal;
  std::vector<float> partial(std::max<int64_t>(1, p * cols)), start(std::max<int64_t>(1, 2 * cols));
  for (float &f : partial)
    f = normal(rng);
  for (float &f : start)
    f = normal(rng);
  Bf16Rows wh(1, cols, cols, rng), we(1, cols, cols, rng);
  std::vector<double> want(2 * cols), tol(2 * cols);
  for (int64_t j = 0; j < cols; ++j) {
    double sum = 0, mag = 0;
    for (int64_t i = 0; i < p; ++i)
      sum += partial[i * cols + j], mag += std::fabs(partial[i * cols + j]);
    want[j] = start[j] + sum * we.values[j], want[cols + j] = start[cols + j] + sum * wh.values[j];
    tol[j] = 1e-6 * (mag * std::fabs(we.values[j]) + std::fabs(start[j])) + 1e-30;
    tol[cols + j] = 1e-6 * (mag * std::fabs(wh.values[j]) + std::fabs(start[cols + j])) + 1e-30;
  }
  Placement pl{gpu};
  void *dp = pl.put(partial.data(), partial.size() * 4), *dh = pl.put(wh.bits.data(), wh.bits.size() * 2),
       *de = pl.put(we.bits.data(), we.bits.size() * 2);
  std::vector<float> first(start), second(start);
  void *g1 = pl.put(first.data(), first.size() * 4), *g2 = pl.put(second.data(), second.size() * 4);
  tk_tensor tp = pl.tensor(dp, TK_F32, {p, c.streams, c.hidden}), th = pl.tensor(dh, TK_BF16, {c.streams, c.hidden}),
            te = pl.tensor(de, TK_BF16, {c.streams, c.hidden});
  auto grads = [&](void *g, int64_t half) {
    return pl.tensor(static_cast<float *>(g) + half * cols, TK_F32, {c.streams, c.hidden});
  };
  tk_tensor h1 = grads(g1, 0), e1 = grads(g1, 1), h2 = grads(g2, 0), e2 = grads(g2, 1);
  if (!r.called(tk_engram_grad_w_reduce(ctx, &tp, &th, &te, &h1, &e1, nullptr)) ||
      !r.called(tk_engram_grad_w_reduce(ctx, &tp, &th, &te, &h2, &e2, nullptr)))
    return r;
  pl.get(first.data(), g1, first.size() * 4);
  pl.get(second.data(), g2, second.size() * 4);
  for (int64_t j = 0; j < 2 * cols; ++j) {
    r.outMismatches += !(std::fabs(first[j] - want[j]) <= tol[j]);
    r.countMismatches += std::memcmp(&first[j], &second[j], 4) != 0;
  }
  r.bytes = 4.0 * p * cols + 20.0 * cols;
  if (gpu && time) // each run adds again: the timing runs change the gradients, not what is checked
    r.ms = gpu->medianMs([&] { tk_engram_grad_w_reduce(ctx, &tp, &th, &te, &h1, &e1, nullptr); }, 3, 20);
  return r;
}

} // namespace tk::checks
