//===- reduce_fused_check.cpp ---------------------------------------------===//
#include "checks/reduce_fused_check.h"
#include "checks/element_compare.h"
#include "checks/parallel_slices.h"
#include "kernels/common/validate.h"
#include "kernels/moe/fused_mapping.h"
#include "kernels/moe/reduce_fused.h"
#include "kernels/quant/formats.h"

#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const ReduceFusedCase &c) {
  // "NxK e=local/total H=h in [out=e4m3] [w] [x_sf]": what bench/peers/moe_layout_rows.py reads.
  return std::to_string(c.tokens) + "x" + std::to_string(c.topk) + " e=" + std::to_string(c.experts / c.ranks) + "/" +
         std::to_string(c.experts) + " H=" + std::to_string(c.hidden) + " " + kernels::dtypeName(c.in) +
         (c.e4m3 ? " out=e4m3" : "") + (c.weights ? " w" : "") + (c.rowScale ? " x_sf" : "") +
         (c.edges ? " edges" : "");
}

CheckResult checkReduceFused(GpuSession *gpu, tk_context ctx, const ReduceFusedCase &c, bool time) {
  CheckResult r;
  const int64_t n = c.tokens, k = c.topk, h = c.hidden;
  const std::vector<int64_t> ids = moeTopkIdx(n, k, c.experts, c.ranks, c.seed);
  kernels::moe::FusedMapping map = kernels::moe::fusedMappingReference(ids.data(), n, k, c.experts / c.ranks, 1);
  // x has N K rows (more than the mapping uses); with edges and an odd seed,
  // none (M = 0).
  const bool noRows = c.edges && c.seed % 2 == 1;
  // More rows than the mapping names (the spec's N K, cut to what is used plus a few: N K rows of 7168 would be
  // gigabytes on the host for the grid's 34k tokens x 9).
  const int64_t m = noRows ? 0 : map.positions + 16;
  std::mt19937 rng((uint32_t)(c.seed * 2654435761u + n + h));
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  if (c.edges)
    for (int32_t &p : map.tokenTopkToPos)
      if (noRows || (p >= 0 && rng() % 9 == 0))
        p = noRows ? p : (rng() % 2 ? (int32_t)(m + rng() % 5) : -(int32_t)(2 + rng() % 5));
  // At least one element each, so that an empty x (M = 0) still has a buffer to point at.
  std::vector<float> x(std::max<int64_t>(m * h, 1)), xSf(std::max<int64_t>(m, 1)), w(n * k), sf(1, normal(rng));
  std::vector<uint16_t> xBf16(c.in == TK_BF16 ? x.size() : 0);
  // x in slices of rows, each from its own generator, on the host's cores (one generator: about a minute of the
  // GPU grid's host time).
  const uint32_t xSeed = rng();
  forSlices(m, 256, [&](int64_t r0, int64_t r1, int64_t slice) {
    std::mt19937 g(xSeed + (uint32_t)slice * 0x9E3779B9u);
    std::normal_distribution<float> gaussian;
    for (int64_t i = r0 * h; i < r1 * h; ++i) {
      x[i] = gaussian(g);
      if (c.edges && g() % 4001 == 0)
        x[i] = g() % 2 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
      else if (c.edges && g() % 3 == 0) // products that underflow to -0 or +0: a sum of -0 must stay -0
        x[i] = g() % 2 ? -1e-30f : 1e-30f;
      if (c.in == TK_BF16) {
        xBf16[i] = kernels::quant::f32ToBf16(x[i]);
        x[i] = kernels::quant::bf16ToF32(xBf16[i]);
      }
    }
  });
  for (float &v : xSf)
    v = normal(rng);
  for (float &v : w) // with edges, some tiny weights: x w underflows to a signed zero
    v = c.edges && rng() % 3 == 0 ? 1e-30f : uniform(rng);
  std::vector<float> acc(n * h);
  // The reference over slices of the tokens on the host's cores (software fmaf: seconds per large case alone).
  forSlices(n, 128, [&](int64_t t0, int64_t t1, int64_t) {
    kernels::moe::reduceFusedReference(x.data(), m, h, c.rowScale ? xSf.data() : nullptr,
                                       c.weights ? w.data() + t0 * k : nullptr, map.tokenTopkToPos.data() + t0 * k,
                                       t1 - t0, k, c.e4m3 ? sf.data() : nullptr, acc.data() + t0 * h);
  });
  const tk_dtype outType = c.e4m3 ? TK_F8_E4M3 : c.in;
  const int64_t so = kernels::elementBytes(outType), si = kernels::elementBytes(c.in);
  std::vector<unsigned char> ref(n * h * so), got(n * h * so);
  forSlices(n * h, 1 << 20, [&](int64_t i0, int64_t i1, int64_t) {
    for (int64_t i = i0; i < i1; ++i) {
      if (outType == TK_F32)
        std::memcpy(&ref[i * 4], &acc[i], 4);
      else if (outType == TK_BF16) {
        const uint16_t b = kernels::quant::f32ToBf16(acc[i]);
        std::memcpy(&ref[i * 2], &b, 2);
      } else
        ref[i] = kernels::quant::encodeE4M3(acc[i]);
    }
  });
  Placement p{gpu};
  void *dx = c.in == TK_BF16 ? p.put(xBf16.data(), xBf16.size() * 2) : p.put(x.data(), x.size() * 4);
  void *dxsf = p.put(xSf.data(), xSf.size() * 4), *dw = p.put(w.data(), n * k * 4),
       *dpos = p.put(map.tokenTopkToPos.data(), n * k * 4), *dsf = p.put(sf.data(), 4),
       *dout = p.poisoned(got.data(), got.size(), 0xEE);
  tk_tensor tx = p.tensor(dx, c.in, {m, h}), txsf = p.tensor(dxsf, TK_F32, {m}), tw = p.tensor(dw, TK_F32, {n, k}),
            tpos = p.tensor(dpos, TK_I32, {n, k}), tsf = p.tensor(dsf, TK_F32, {1}),
            tout = p.tensor(dout, outType, {n, h});
  auto call = [&] {
    return tk_reduce_fused(ctx, &tx, c.rowScale ? &txsf : nullptr, c.weights ? &tw : nullptr, &tpos,
                           c.e4m3 ? &tsf : nullptr, &tout, nullptr);
  };
  if (!r.called(call()))
    return r;
  p.get(got.data(), dout, got.size());
  for (int64_t i = 0; i < n * h; ++i) // any NaN matches a NaN (element_compare.h)
    r.outMismatches += !sameOrBothNan(outType, &got[i * so], &ref[i * so], so);
  int64_t valid = 0;
  for (int32_t pos : map.tokenTopkToPos)
    valid += pos >= 0 && pos < m;
  r.bytes = (double)(n * k * 4 + (c.rowScale ? m * 4 : 0) + n * h * so + valid * h * si + (c.weights ? n * k * 4 : 0));
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 3, 20);
  return r;
}

} // namespace tk::checks
