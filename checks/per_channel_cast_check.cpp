//===- per_channel_cast_check.cpp -----------------------------------------===//
#include "checks/per_channel_cast_check.h"
#include "checks/parallel_slices.h"
#include "checks/swiglu_check.h"
#include "kernels/quant/per_channel_cast.h"

#include <cmath>
#include <cstring>
#include <random>

namespace tk::checks {

std::string describe(const PerChannelCastCase &c) {
  return std::to_string(c.m) + "x" + std::to_string(c.k) + " b=" + std::to_string(c.blockM) +
         (c.quantized ? " e4m3 x_sf" : c.in == TK_BF16 ? " bf16" : " f32") + (c.roundSf ? " round" : "") +
         (c.transposed ? " transposed" : "") +
         (c.swiglu ? " swiglu" + (c.clamp ? " clamp=" + std::to_string(*c.clamp) : std::string()) : "") +
         (c.gatherTopk ? " gather top" + std::to_string(c.gatherTopk) + " e" + std::to_string(c.localExperts) + "/" +
                             std::to_string(c.totalExperts)
                       : "");
}

CheckResult checkPerChannelCast(GpuSession *gpu, tk_context ctx, const PerChannelCastCase &c, bool time,
                                const std::vector<uint8_t> *input, const ExpTable *deviceExp) {
  CheckResult r;
  if (gpu && c.swiglu && !deviceExp) {
    r.status = TK_ERROR_INVALID_ARGUMENT;
    r.error = "a SwiGLU check on the GPU needs the device expf table";
    return r;
  }
  const int64_t mb = c.m / c.blockM, elt = c.quantized ? 1 : c.in == TK_BF16 ? 2 : 4;
  const dsl::DType in = c.quantized ? dsl::DType::F8E4M3 : c.in == TK_BF16 ? dsl::DType::BF16 : dsl::DType::F32;
  std::vector<uint8_t> x;
  std::vector<float> xs; // a quantized x's multipliers, (M, K / 128)
  if (c.quantized) {
    x.resize(c.m * c.k);
    xs.resize(std::max<int64_t>(1, c.m * (c.k / 128)));
    std::mt19937_64 rng(c.seed);
    for (uint8_t &q : x)
      q = (uint8_t)rng(), q = (q & 0x7F) == 0x7F ? q & 0xFE : q; // no NaN codes
    std::uniform_real_distribution<float> unit(0.5f, 1.0f);
    for (float &v : xs)
      v = std::ldexp(unit(rng), (int)(rng() % 16) - 12);
  } else if (input) {
    x = *input;
  } else {
    x = makeInput(PerTokenCastCase{c.m, c.swiglu ? 2 * c.k : c.k, 128, c.in, 0, 0, c.seed});
  }
  // The row gather: out has the routing's rows, each a token's row (or zeros).
  MoeRouting routing;
  if (c.gatherTopk)
    routing = makeMoeRouting(c.m, c.gatherTopk, c.totalExperts, c.localExperts, 128, c.seed);
  const int64_t outRows = c.gatherTopk ? routing.rows : c.m, outBlocks = c.gatherTopk ? kernels::quant::ceilDiv(outRows, 128) : mb;
  std::vector<uint8_t> refOut(outRows * c.k), out(outRows * c.k);
  std::vector<float> refSf(std::max<int64_t>(1, outBlocks * c.k)), sf(refSf.size());
  if (c.swiglu) { // the activation on all cores, then the per-channel cast of it
    std::vector<uint16_t> act(c.m * c.k);
    kernels::quant::ExpFunction expf = deviceExp ? kernels::quant::ExpFunction(std::cref(*deviceExp))
                                                 : kernels::quant::ExpFunction(hostExpf);
    parallelRows(c.m, [&](int64_t begin, int64_t end) {
      kernels::quant::swigluActivationReference(reinterpret_cast<const uint16_t *>(x.data()), c.k, c.clamp, expf,
                                                begin, end, act.data());
    });
    kernels::quant::perChannelCastReference(act.data(), dsl::DType::BF16, c.m, c.k, c.blockM, c.roundSf,
                                            c.transposed, refOut.data(), refSf.data());
  } else if (c.gatherTopk) {
    kernels::quant::perChannelCastGatherReference(x.data(), in, c.k, routing.rowToken.data(), outRows, 128,
                                                  c.roundSf, refOut.data(), refSf.data(), xs.data());
  } else {
    kernels::quant::perChannelCastReference(x.data(), in, c.m, c.k, c.blockM, c.roundSf, c.transposed,
                                            refOut.data(), refSf.data(), xs.data());
  }
  Placement p{gpu};
  void *dx = p.put(x.data(), x.size());
  void *dxs = c.quantized ? p.put(xs.data(), xs.size() * 4) : nullptr;
  tk_tensor txs = p.tensor(dxs, TK_F32, {c.m, c.k / 128});
  void *dout = p.poisoned(out.data(), out.size(), 0xFF), *dsf = p.poisoned(sf.data(), sf.size() * 4, 0xFF);
  tk_tensor tx = p.tensor(dx, c.quantized ? TK_F8_E4M3 : c.in, {c.m, c.swiglu ? 2 * c.k : c.k});
  tk_tensor tout = c.transposed ? p.tensor(dout, TK_F8_E4M3, {c.k, c.m}) : p.tensor(dout, TK_F8_E4M3, {outRows, c.k});
  tk_tensor tsf = p.tensor(dsf, TK_F32, {outBlocks, c.k});
  void *dpos = c.gatherTopk ? p.put(routing.rowToken.data(), std::max<int64_t>(1, outRows) * 4) : nullptr;
  tk_tensor tpos = p.tensor(dpos, TK_I32, {outRows});
  const uint32_t flags = c.roundSf ? TK_ROUND_SF : 0;
  auto call = [&] {
    if (c.swiglu)
      return tk_swiglu_forward_and_per_channel_cast_and_transpose(ctx, &tx, TK_FORMAT_E4M3, (int32_t)c.blockM, flags,
                                                                  c.transposed ? 0 : 1, c.clamp ? &*c.clamp : nullptr,
                                                                  &tout, &tsf, nullptr);
    if (c.gatherTopk)
      return tk_per_channel_cast_fused(ctx, &tx, c.quantized ? &txs : nullptr, TK_FORMAT_E4M3, (int32_t)c.blockM,
                                       flags, c.quantized ? 128 : 0, &tpos, &tout, &tsf, nullptr);
    if (c.quantized)
      return tk_per_channel_cast_fused(ctx, &tx, &txs, TK_FORMAT_E4M3, (int32_t)c.blockM, flags, 128, nullptr, &tout,
                                       &tsf, nullptr);
    return c.transposed
               ? tk_per_channel_cast_and_transpose(ctx, &tx, TK_FORMAT_E4M3, (int32_t)c.blockM, flags, &tout, &tsf,
                                                   nullptr)
               : tk_per_channel_cast(ctx, &tx, TK_FORMAT_E4M3, (int32_t)c.blockM, flags, &tout, &tsf, nullptr);
  };
  if (!r.called(call()))
    return r;
  p.get(out.data(), dout, out.size());
  p.get(sf.data(), dsf, sf.size() * 4);
  for (size_t i = 0; i < out.size(); ++i)
    r.outMismatches += out[i] != refOut[i];
  for (int64_t i = 0; i < outBlocks * c.k; ++i)
    r.sfMismatches += std::memcmp(&sf[i], &refSf[i], 4) != 0;
  // quant.md 4.13-4.15, 4.17: x (+ its multipliers) + out + sf.
  if (c.gatherTopk) { // quant.md 4.14: x (+ scales) per non-padding output row, + index, out and SF
    int64_t real = 0;
    for (int32_t t : routing.rowToken)
      real += t >= 0;
    r.bytes = (double)real * c.k * (elt + (c.quantized ? 4.0 / 128 : 0)) + (double)outRows * (4 + c.k) +
              (double)outBlocks * c.k * 4;
  } else {
    r.bytes = (double)c.m * c.k * (elt * (c.swiglu ? 2 : 1) + 1) + (double)mb * c.k * 4 +
              (c.quantized ? (double)c.m * (c.k / 128) * 4 : 0);
  }
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::checks
