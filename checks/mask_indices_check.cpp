//===- mask_indices_check.cpp ---------------------------------------------===//
#include "checks/mask_indices_check.h"
#include "kernels/moe/mask_indices_by_tp.h"

#include <cstring>
#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const MaskIndicesCase &c) {
  return std::to_string(c.tokens) + "x" + std::to_string(c.topk) + " n=" + std::to_string(c.experts) +
         " ep=" + std::to_string(c.epRanks) + " tp=" + std::to_string(c.tpRank) + "/" + std::to_string(c.tpRanks) +
         (c.dtype == TK_I32 ? " i32" : " i64");
}

CheckResult checkMaskIndices(GpuSession *gpu, tk_context ctx, const MaskIndicesCase &c, bool time) {
  CheckResult r;
  const int64_t count = c.tokens * c.topk, perRank = c.experts / c.epRanks;
  std::vector<int64_t> ids(count), ref(count);
  std::mt19937_64 rng(c.seed * 977 + c.experts + c.tpRank);
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t pick = rng() % 64;
    ids[i] = pick == 0 ? -1 : pick == 1 ? -5 : pick == 2 ? c.experts + (int64_t)(rng() % 7) : (int64_t)(rng() % c.experts);
    ref[i] = kernels::moe::maskIndexReference(ids[i], perRank, c.tpRanks, c.tpRank);
  }
  const int64_t elt = c.dtype == TK_I32 ? 4 : 8;
  std::vector<uint8_t> in(count * elt), got(count * elt);
  for (int64_t i = 0; i < count; ++i) {
    if (elt == 4) {
      int32_t v = (int32_t)ids[i];
      std::memcpy(&in[i * 4], &v, 4);
    } else {
      std::memcpy(&in[i * 8], &ids[i], 8);
    }
  }
  Placement p{gpu};
  void *din = p.put(in.data(), in.size()), *dout = p.poisoned(got.data(), got.size(), 0xEE);
  tk_tensor ti = p.tensor(din, c.dtype, {c.tokens, c.topk}), to = p.tensor(dout, c.dtype, {c.tokens, c.topk});
  auto call = [&] {
    return tk_mask_indices_by_tp(ctx, &ti, c.experts, (int32_t)c.epRanks, c.tpRank, c.tpRanks, &to, nullptr);
  };
  if (!r.called(call()))
    return r;
  p.get(got.data(), dout, got.size());
  for (int64_t i = 0; i < count; ++i) {
    int64_t v;
    if (elt == 4) {
      int32_t w;
      std::memcpy(&w, &got[i * 4], 4);
      v = w;
    } else {
      std::memcpy(&v, &got[i * 8], 8);
    }
    r.outMismatches += v != ref[i];
  }
  r.bytes = 2.0 * count * elt;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::checks
