//===- swiglu_backward_check.cpp ------------------------------------------===//
#include "checks/swiglu_backward_check.h"
#include "checks/expf_oracle.h"
#include "checks/parallel_slices.h"
#include "checks/swiglu_check.h"
#include "kernels/quant/per_token_cast.h"
#include "kernels/quant/swiglu_backward.h"

#include <cmath>
#include <cstring>
#include <random>

namespace tk::checks {

using kernels::quant::bf16ToF32;
using kernels::quant::decodeE4M3;

std::string describe(const SwigluBackwardCase &c) {
  return "T" + std::to_string(c.tokens) + "k" + std::to_string(c.topk) + "e" + std::to_string(c.localExperts) + "/" +
         std::to_string(c.totalExperts) + "xH" + std::to_string(c.h) + " g=" + std::to_string(c.group) +
         (c.roundSf ? " round" : "") + (c.clamp ? " clamp=" + std::to_string(*c.clamp) : "");
}

CheckResult checkSwigluBackward(GpuSession *gpu, tk_context ctx, const SwigluBackwardCase &c, bool time) {
  CheckResult r;
  const int64_t h = c.h, g = c.group, hg = h / g;
  MoeRouting routing = makeMoeRouting(c.tokens, c.topk, c.totalExperts, c.localExperts, g, c.seed);
  const int64_t n = routing.rows, slots = routing.tokens * routing.topk;
  // x: the tokens' per-token e4m3 cast (default flags), expanded; padding rows
  // are the cast of a zero row.
  std::vector<uint8_t> tokensX = makeInput(PerTokenCastCase{routing.tokens, 2 * h, g, TK_BF16, 0, 0, c.seed});
  std::vector<uint8_t> tokenQ(routing.tokens * 2 * h);
  std::vector<float> tokenS(routing.tokens * 2 * hg);
  parallelRows(routing.tokens, [&](int64_t begin, int64_t end) {
    kernels::quant::perTokenCastReference(tokensX.data() + begin * 2 * h * 2, dsl::DType::BF16, end - begin, 2 * h,
                                          2 * h, g, false, tokenQ.data() + begin * 2 * h,
                                          tokenS.data() + begin * 2 * hg, 2 * hg, 1, kernels::quant::Format::E4M3);
  });
  const float zeroRowScale = kernels::quant::scaleRule(0.0f, kernels::quant::Format::E4M3, false).sf;
  std::vector<uint8_t> xq(n * 2 * h, 0);
  std::vector<float> xs(n * 2 * hg, zeroRowScale);
  std::vector<uint16_t> gradOut(n * h);
  parallelRows(n, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      if (int32_t t = routing.rowToken[p]; t >= 0) {
        std::memcpy(&xq[p * 2 * h], &tokenQ[t * 2 * h], 2 * h);
        std::memcpy(&xs[p * 2 * hg], &tokenS[t * 2 * hg], 2 * hg * 4);
      }
      std::mt19937 rng((uint32_t)(c.seed * 31337u + p));
      std::normal_distribution<float> normal(0.0f, 1.0f);
      for (int64_t j = 0; j < h; ++j)
        gradOut[p * h + j] = kernels::quant::f32ToBf16(normal(rng));
    }
  });
  std::vector<float> weight(std::max<int64_t>(1, slots));
  std::mt19937 rng((uint32_t)c.seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (float &w : weight)
    w = unit(rng);
  std::vector<int32_t> tokenTopkToPos(std::max<int64_t>(1, slots), -1);
  for (int64_t p = 0; p < n; ++p)
    if (routing.posToTokenTopk[p] >= 0)
      tokenTopkToPos[routing.posToTokenTopk[p]] = (int32_t)p;

  kernels::quant::SwigluBackwardConfig config;
  config.hidden = h, config.group = g, config.roundSf = c.roundSf, config.clamp = c.clamp;
  // The reference's exponentials, in its call order: e^-x of every element.
  std::vector<float> expValues;
  if (gpu) {
    std::vector<float> args(n * h);
    parallelRows(n, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p)
        for (int64_t j = 0; j < h; ++j) {
          float xv = decodeE4M3(xq[p * 2 * h + j]) * xs[p * 2 * hg + j / g];
          if (c.clamp && xv > *c.clamp)
            xv = *c.clamp;
          args[p * h + j] = -xv;
        }
    });
    try {
      expValues = deviceExpValues(*gpu, args);
    } catch (const std::exception &e) {
      r.status = TK_ERROR_UNSUPPORTED;
      r.error = std::string("no device expf: ") + e.what();
      return r;
    }
  }
  std::vector<uint16_t> refOut(n * h), refGrad(n * 2 * h);
  std::vector<uint8_t> refFp8(n * 2 * h);
  std::vector<float> refSf(n * 2 * hg), rowDot(n);
  kernels::quant::SwigluBackwardRows rows{xq.data(), xs.data(), gradOut.data(), weight.data(),
                                          routing.posToTokenTopk.data(), slots};
  parallelRows(n, [&](int64_t begin, int64_t end) {
    kernels::quant::ExpFunction expf = hostExpf;
    if (gpu) // positional: the reference asks for e^-x of its elements in order
      expf = [&expValues, at = begin * h](float) mutable { return expValues[at++]; };
    kernels::quant::swigluBackwardReference(rows, config, expf, begin, end, refOut.data(), refFp8.data(),
                                            refSf.data(), refGrad.data(), rowDot.data());
  });
  std::vector<float> refWeightGrad(weight.size(), 0.0f); // slots without a row stay 0 here and in the op's zeroing
  for (int64_t p = 0; p < n; ++p)
    if (routing.posToTokenTopk[p] >= 0)
      refWeightGrad[routing.posToTokenTopk[p]] = rowDot[p];

  Placement pl{gpu};
  void *dxq = pl.put(xq.data(), xq.size()), *dxs = pl.put(xs.data(), xs.size() * 4);
  void *dgo = pl.put(gradOut.data(), gradOut.size() * 2), *dw = pl.put(weight.data(), weight.size() * 4);
  void *dtopk = pl.put(routing.posToTokenTopk.data(), std::max<int64_t>(1, n) * 4);
  void *dttp = pl.put(tokenTopkToPos.data(), tokenTopkToPos.size() * 4);
  std::vector<uint16_t> out(n * h), grad(n * 2 * h);
  std::vector<uint8_t> fp8(n * 2 * h);
  std::vector<float> sf(n * 2 * hg), weightGrad(weight.size());
  void *dout = pl.poisoned(out.data(), out.size() * 2, 0xFF), *dgrad = pl.poisoned(grad.data(), grad.size() * 2, 0xFF);
  void *dfp8 = pl.poisoned(fp8.data(), fp8.size(), 0xFF), *dsf = pl.poisoned(sf.data(), sf.size() * 4, 0xFF);
  void *dwg = pl.poisoned(weightGrad.data(), weightGrad.size() * 4, 0xFF);
  tk_tensor txq = pl.tensor(dxq, TK_F8_E4M3, {n, 2 * h}), txs = pl.tensor(dxs, TK_F32, {n, 2 * hg});
  tk_tensor tgo = pl.tensor(dgo, TK_BF16, {n, h}), tw = pl.tensor(dw, TK_F32, {routing.tokens, routing.topk});
  tk_tensor ttopk = pl.tensor(dtopk, TK_I32, {n}), tttp = pl.tensor(dttp, TK_I32, {routing.tokens, routing.topk});
  tk_tensor tout = pl.tensor(dout, TK_BF16, {n, h}), tfp8 = pl.tensor(dfp8, TK_F8_E4M3, {n, 2 * h});
  tk_tensor tsf = pl.tensor(dsf, TK_F32, {n, 2 * hg}), tgrad = pl.tensor(dgrad, TK_BF16, {n, 2 * h});
  tk_tensor twg = pl.tensor(dwg, TK_F32, {routing.tokens, routing.topk});
  const float clampValue = c.clamp.value_or(0.0f);
  auto call = [&] {
    return tk_swiglu_backward_and_per_token_cast(ctx, &txq, &txs, &tgo, &tw, &ttopk, &tttp, (int32_t)g,
                                                 c.roundSf ? TK_ROUND_SF : 0, c.clamp ? &clampValue : nullptr, &tout,
                                                 &tfp8, &tsf, &tgrad, &twg, nullptr);
  };
  if (!r.called(call()))
    return r;
  pl.get(out.data(), dout, out.size() * 2);
  pl.get(grad.data(), dgrad, grad.size() * 2);
  pl.get(fp8.data(), dfp8, fp8.size());
  pl.get(sf.data(), dsf, sf.size() * 4);
  pl.get(weightGrad.data(), dwg, weightGrad.size() * 4);
  for (size_t i = 0; i < out.size(); ++i)
    r.outMismatches += out[i] != refOut[i];
  for (size_t i = 0; i < grad.size(); ++i)
    r.outMismatches += (grad[i] != refGrad[i]) + (fp8[i] != refFp8[i]);
  for (size_t i = 0; i < sf.size(); ++i)
    r.sfMismatches += std::memcmp(&sf[i], &refSf[i], 4) != 0;
  for (int64_t s = 0; s < slots; ++s) {
    const float want = refWeightGrad[s], got = weightGrad[s];
    const bool ok = tokenTopkToPos[s] < 0 ? got == 0.0f : std::fabs(got - want) <= 1e-4f + 1e-4f * std::fabs(want);
    r.countMismatches += !ok;
  }
  // quant.md 4.18: per hidden position 2 + 2 + 8/g read, 2 + 4 + 2 + 8/g
  // written; per row index + weight + weight_grad words.
  r.bytes = (double)n * h * (12.0 + 16.0 / g) + (double)n * 12;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::checks
