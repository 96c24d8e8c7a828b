//===- mhc_streams_check.cpp ----------------------------------------------===//
#include "checks/mhc_streams_check.h"
#include "checks/bf16.h"
#include "checks/random_draws.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <random>

namespace tk::checks {

using kernels::mhc::StreamOp;

std::string describe(const MhcStreamsCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.streams) + "x" + std::to_string(c.hidden) +
         (c.accumulate ? " acc" : "");
}

namespace {
/// An output: its placed buffer for each of the two calls and the host copies.
struct Output {
  std::vector<uint8_t> host[2];
  void *placed[2] = {};
  tk_tensor tensor[2];
};

class StreamsRun {
public:
  StreamsRun(GpuSession *gpu, const MhcStreamsCase &c)
      : p{gpu}, rng((uint32_t)(c.seed * 2654435761u + c.tokens * 31 + c.hidden + (int)c.op * 7)) {}

  std::vector<uint16_t> bf16s(int64_t count) { return randnBf16(rng, count); }
  std::vector<float> f32s(int64_t count) { return randn(rng, count); }
  /// An input holding `host` (copied: on the CPU path the operator reads the copy itself).
  template <typename T> tk_tensor input(const std::vector<T> &host, tk_dtype dtype, std::vector<int64_t> shape) {
    const uint8_t *b = (const uint8_t *)host.data();
    inputs.emplace_back(b, b + host.size() * sizeof(T));
    return p.tensor(p.put(inputs.back().data(), inputs.back().size()), dtype, std::move(shape));
  }
  /// An output of `elements` (poisoned), or, with `start`, one that holds
  /// `start` before each call (an accumulation buffer).
  Output &output(int64_t elements, size_t size, tk_dtype dtype, std::vector<int64_t> shape,
                 const std::vector<uint16_t> *start = nullptr) {
    outputs.emplace_back();
    Output &o = outputs.back();
    for (int k = 0; k < 2; ++k) {
      o.host[k].resize(std::max<int64_t>(1, elements) * size);
      if (start) // on the CPU path the call updates host[k] itself
        std::memcpy(o.host[k].data(), start->data(), o.host[k].size());
      o.placed[k] =
          start ? p.put(o.host[k].data(), o.host[k].size()) : p.poisoned(o.host[k].data(), o.host[k].size(), 0xEE);
      o.tensor[k] = p.tensor(o.placed[k], dtype, shape);
    }
    return o;
  }
  /// Runs `call(k)` for k = 0, 1 (each on its own outputs), reads the
  /// outputs back and counts the second call's differences from the first's.
  bool callTwice(CheckResult &r, const std::function<tk_status(int)> &call) {
    for (int k = 0; k < 2; ++k) {
      if (!r.called(call(k)))
        return false;
      for (Output &o : outputs)
        p.get(o.host[k].data(), o.placed[k], o.host[k].size());
    }
    for (Output &o : outputs)
      r.countMismatches += o.host[0] != o.host[1];
    return true;
  }

  Placement p;
  std::deque<Output> outputs;
  std::deque<std::vector<uint8_t>> inputs;

private:
  std::mt19937 rng;
};

int64_t bitDifferences(const std::vector<uint8_t> &got, const std::vector<uint16_t> &want, int64_t count) {
  int64_t bad = 0;
  for (int64_t i = 0; i < count; ++i)
    bad += std::memcmp(got.data() + 2 * i, &want[i], 2) != 0;
  return bad;
}

int64_t outsideTolerance(const std::vector<uint8_t> &got, const std::vector<double> &want,
                         const std::vector<double> &scale, int64_t count) {
  int64_t bad = 0;
  for (int64_t i = 0; i < count; ++i) {
    float g;
    std::memcpy(&g, got.data() + 4 * i, 4);
    bad += !(std::fabs(g - want[i]) <= 1e-5 * scale[i] + 1e-30);
  }
  return bad;
}

/// Each row of (rows, n) values replaced by its softmax (3.5's mix draw).
void softmaxRows(std::vector<float> &v, int64_t rows, int64_t n) {
  for (int64_t t = 0; t < rows; ++t) {
    float *row = v.data() + t * n, top = *std::max_element(row, row + n), sum = 0;
    for (int64_t m = 0; m < n; ++m)
      sum += row[m] = std::exp(row[m] - top);
    for (int64_t m = 0; m < n; ++m)
      row[m] /= sum;
  }
}
} // namespace

CheckResult checkMhcStreams(GpuSession *gpu, tk_context ctx, const MhcStreamsCase &c, bool time) {
  namespace ref = kernels::mhc;
  CheckResult r;
  const int64_t t = c.tokens, n = c.streams, h = c.hidden, many = t * n * h, one = t * h, mixes = t * n,
                combs = t * n * n;
  StreamsRun run(gpu, c);
  std::function<tk_status(int)> call;
  std::function<void()> compare;
  std::vector<uint16_t> want(std::max<int64_t>(1, std::max(many, one))), want2(std::max<int64_t>(1, many));
  std::vector<double> sumA(std::max<int64_t>(1, combs)), scaleA(sumA.size()), sumB(sumA.size()), scaleB(sumA.size());
  switch (c.op) {
  case StreamOp::ExpandFwd: {
    auto hidden = run.bf16s(one);
    ref::expandForwardReference(hidden.data(), t, n, h, want.data());
    tk_tensor x = run.input(hidden, TK_BF16, {t, h});
    Output &out = run.output(many, 2, TK_BF16, {t, n, h});
    call = [&, x](int k) { return tk_expand_to_mhc_fwd(ctx, &x, &out.tensor[k], nullptr); };
    compare = [&] { r.outMismatches += bitDifferences(out.host[0], want, many); };
    r.bytes = 2.0 * one + 2.0 * many;
    break;
  }
  case StreamOp::ExpandBwd: {
    auto dout = run.bf16s(many);
    ref::expandBackwardReference(dout.data(), t, n, h, want.data());
    tk_tensor g = run.input(dout, TK_BF16, {t, n, h});
    Output &out = run.output(one, 2, TK_BF16, {t, h});
    call = [&, g](int k) { return tk_expand_to_mhc_bwd(ctx, &g, &out.tensor[k], nullptr); };
    compare = [&] { r.outMismatches += bitDifferences(out.host[0], want, one); };
    r.bytes = 2.0 * many + 2.0 * one;
    break;
  }
  case StreamOp::ApplyMixFwd: {
    auto x = run.bf16s(many);
    auto mix = run.f32s(mixes);
    softmaxRows(mix, t, n);
    ref::applyMixForwardReference(x.data(), mix.data(), t, n, h, want.data());
    tk_tensor tx = run.input(x, TK_BF16, {t, n, h}), tm = run.input(mix, TK_F32, {t, n});
    Output &out = run.output(one, 2, TK_BF16, {t, h});
    call = [&, tx, tm](int k) { return tk_mhc_pre_apply_mix_fwd(ctx, &tx, &tm, &out.tensor[k], nullptr); };
    compare = [&] { r.outMismatches += bitDifferences(out.host[0], want, one); };
    r.bytes = 2.0 * many + 4.0 * mixes + 2.0 * one;
    break;
  }
  case StreamOp::ApplyMixBwd: {
    auto dout = run.bf16s(one), x = run.bf16s(many);
    auto mix = run.f32s(mixes);
    softmaxRows(mix, t, n);
    std::vector<uint16_t> start = c.accumulate ? run.bf16s(many) : std::vector<uint16_t>();
    want.assign(start.begin(), start.end());
    want.resize(std::max<int64_t>(1, many));
    ref::applyMixBackwardReference(dout.data(), x.data(), mix.data(), t, n, h, c.accumulate, want.data(), sumA.data(),
                                   scaleA.data());
    tk_tensor tg = run.input(dout, TK_BF16, {t, h}), tx = run.input(x, TK_BF16, {t, n, h}),
              tm = run.input(mix, TK_F32, {t, n});
    Output &dx = run.output(many, 2, TK_BF16, {t, n, h}, c.accumulate ? &start : nullptr);
    Output &dmix = run.output(mixes, 4, TK_F32, {t, n});
    call = [&, tg, tx, tm](int k) {
      return tk_mhc_pre_apply_mix_bwd(ctx, &tg, &tx, &tm, c.accumulate, &dx.tensor[k], &dmix.tensor[k], nullptr);
    };
    compare = [&] {
      r.outMismatches += bitDifferences(dx.host[0], want, many);
      r.sfMismatches += outsideTolerance(dmix.host[0], sumA, scaleA, mixes);
    };
    // 3.5: read dout, x, the buffer, mix; write dx, dmix.
    r.bytes = 2.0 * one + 2.0 * many + (c.accumulate ? 2.0 * many : 0.0) + 4.0 * mixes + 2.0 * many + 4.0 * mixes;
    break;
  }
  case StreamOp::PostFwd: {
    auto x = run.bf16s(one), res = run.bf16s(many);
    auto post = run.f32s(mixes), comb = run.f32s(combs);
    ref::postForwardReference(x.data(), res.data(), post.data(), comb.data(), t, n, h, want.data());
    tk_tensor tx = run.input(x, TK_BF16, {t, h}), tr = run.input(res, TK_BF16, {t, n, h}),
              tp = run.input(post, TK_F32, {t, n}), tc = run.input(comb, TK_F32, {t, n, n});
    Output &out = run.output(many, 2, TK_BF16, {t, n, h});
    call = [&, tx, tr, tp, tc](int k) { return tk_mhc_post_fwd(ctx, &tx, &tr, &tp, &tc, &out.tensor[k], nullptr); };
    compare = [&] { r.outMismatches += bitDifferences(out.host[0], want, many); };
    r.bytes = 2.0 * one + 2.0 * many + 4.0 * mixes + 4.0 * combs + 2.0 * many;
    break;
  }
  case StreamOp::PostBwd: {
    auto dout = run.bf16s(many), x = run.bf16s(one), res = run.bf16s(many);
    auto post = run.f32s(mixes), comb = run.f32s(combs);
    ref::postBackwardReference(dout.data(), x.data(), res.data(), post.data(), comb.data(), t, n, h, want2.data(),
                               want.data(), sumA.data(), scaleA.data(), sumB.data(), scaleB.data());
    tk_tensor tg = run.input(dout, TK_BF16, {t, n, h}), tx = run.input(x, TK_BF16, {t, h}),
              tr = run.input(res, TK_BF16, {t, n, h}), tp = run.input(post, TK_F32, {t, n}),
              tc = run.input(comb, TK_F32, {t, n, n});
    Output &dx = run.output(one, 2, TK_BF16, {t, h});
    Output &dres = run.output(many, 2, TK_BF16, {t, n, h});
    Output &dpost = run.output(mixes, 4, TK_F32, {t, n});
    Output &dcomb = run.output(combs, 4, TK_F32, {t, n, n});
    call = [&, tg, tx, tr, tp, tc](int k) {
      return tk_mhc_post_bwd(ctx, &tg, &tx, &tr, &tp, &tc, &dx.tensor[k], &dres.tensor[k], &dpost.tensor[k],
                             &dcomb.tensor[k], nullptr);
    };
    compare = [&] {
      r.outMismatches += bitDifferences(dx.host[0], want2, one) + bitDifferences(dres.host[0], want, many);
      r.sfMismatches +=
          outsideTolerance(dpost.host[0], sumA, scaleA, mixes) + outsideTolerance(dcomb.host[0], sumB, scaleB, combs);
    };
    // 3.7: read dout, residual, x, post, comb; write dx, dres, dpost, dcomb.
    r.bytes = 4.0 * many + 2.0 * one + 4.0 * mixes + 4.0 * combs + 2.0 * many + 2.0 * one + 4.0 * mixes + 4.0 * combs;
    break;
  }
  }
  if (!run.callTwice(r, call))
    return r;
  compare();
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(0); }, 3, 20);
  return r;
}

} // namespace tk::checks
