//===- engram_check.cpp ---------------------------------------------------===//
#include "checks/engram_check.h"
#include "checks/bf16.h"
#include "checks/element_compare.h"
#include "kernels/engram/engram_hash.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const EngramHashCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.ngram) + " Lh=" + std::to_string(c.layers) +
         " E=" + std::to_string(c.tables) + (c.edges ? " edges" : "");
}

std::string describe(const FusedWeightCase &c) {
  return std::to_string(c.streams) + "x" + std::to_string(c.hidden) + (c.edges ? " edges" : "");
}

CheckResult checkEngramHash(GpuSession *gpu, tk_context ctx, const EngramHashCase &c, bool time) {
  CheckResult r;
  const int64_t t = c.tokens, n = c.ngram, lh = c.layers, e = c.tables, cols = (n - 1) * e;
  std::mt19937_64 rng(c.seed * 0x9E3779B97F4A7C15ull + t);
  std::uniform_int_distribution<int32_t> id(0, 99999), vocab(100000, 999999);
  std::uniform_int_distribution<int64_t> mult(0, 99999);
  // At least one element each: the placed buffers of an empty tensor still need an address.
  std::vector<int32_t> ids(std::max<int64_t>(1, t * n)), sizes(lh * cols), offsets(lh * cols),
      got(std::max<int64_t>(1, lh * t * cols)), want(got.size());
  std::vector<int64_t> multipliers(lh * n);
  for (int32_t &v : ids) // (one spare element when T = 0)
    v = c.edges && rng() % 4 == 0 ? (int32_t)rng() : id(rng);
  for (int64_t &v : multipliers)
    v = c.edges && rng() % 2 ? (int64_t)rng() : mult(rng);
  for (int32_t &v : sizes)
    v = vocab(rng);
  if (!r.called(tk_engram_make_offsets(sizes.data(), lh, n - 1, e, offsets.data())))
    return r;
  if (c.edges) // after the offsets (which need positive sizes): a zero and a negative modulus
    sizes[1] = 0, sizes[lh * cols - 1] = -7;
  kernels::engram::engramHashReference(ids.data(), multipliers.data(), sizes.data(), offsets.data(), t, n, lh, e,
                                       want.data());
  Placement p{gpu};
  void *di = p.put(ids.data(), ids.size() * 4), *dm = p.put(multipliers.data(), lh * n * 8),
       *dv = p.put(sizes.data(), sizes.size() * 4), *dof = p.put(offsets.data(), offsets.size() * 4),
       *dout = p.poisoned(got.data(), got.size() * 4, 0xEE);
  tk_tensor ti = p.tensor(di, TK_I32, {t, n}), tm = p.tensor(dm, TK_I64, {lh, n}),
            tv = p.tensor(dv, TK_I32, {lh, n - 1, e}), to = p.tensor(dof, TK_I32, {lh, cols}),
            tout = p.tensor(dout, TK_I32, {lh, t, cols});
  auto call = [&] { return tk_engram_hash(ctx, &ti, &tm, &tv, &to, &tout, nullptr); };
  if (!r.called(call()))
    return r;
  p.get(got.data(), dout, got.size() * 4);
  for (int64_t i = 0; i < lh * t * cols; ++i)
    r.outMismatches += got[i] != want[i];
  r.bytes = 4.0 * t * n + 8.0 * lh * n + 8.0 * lh * cols + 4.0 * lh * t * cols;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 3, 20);
  return r;
}

CheckResult checkFusedWeight(GpuSession *gpu, tk_context ctx, const FusedWeightCase &c, bool time) {
  CheckResult r;
  const int64_t count = c.streams * c.hidden;
  std::mt19937 rng((uint32_t)(c.seed * 2654435761u + count));
  std::normal_distribution<float> normal;
  std::vector<uint16_t> wh(std::max<int64_t>(1, count)), we(wh.size());
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -3e-39f, 3.0e38f};
  for (int64_t i = 0; i < count; ++i) {
    wh[i] = bf16Bits(c.edges && rng() % 8 == 0 ? specials[rng() % 8] : normal(rng));
    we[i] = bf16Bits(c.edges && rng() % 8 == 0 ? specials[rng() % 8] : normal(rng));
  }
  std::vector<float> got(wh.size()), want(wh.size());
  for (int64_t i = 0; i < count; ++i)
    want[i] = bf16Value(wh[i]) * bf16Value(we[i]);
  Placement p{gpu};
  void *dh = p.put(wh.data(), wh.size() * 2), *de = p.put(we.data(), we.size() * 2),
       *dout = p.poisoned(got.data(), got.size() * 4, 0xEE);
  tk_tensor th = p.tensor(dh, TK_BF16, {c.streams, c.hidden}), te = p.tensor(de, TK_BF16, {c.streams, c.hidden}),
            tout = p.tensor(dout, TK_F32, {c.streams, c.hidden});
  auto call = [&] { return tk_engram_fused_weight(ctx, &th, &te, &tout, nullptr); };
  if (!r.called(call()))
    return r;
  p.get(got.data(), dout, count * 4);
  for (int64_t i = 0; i < count; ++i) // any NaN matches a NaN (element_compare.h)
    r.outMismatches += !sameOrBothNan(TK_F32, &got[i], &want[i], 4);
  r.bytes = 8.0 * count;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 3, 20);
  return r;
}

} // namespace tk::checks
