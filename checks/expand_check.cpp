//===- expand_check.cpp ---------------------------------------------------===//
#include "checks/expand_check.h"
#include "kernels/common/validate.h"
#include "kernels/moe/expand_to_fused.h"
#include "kernels/moe/fused_mapping.h"

#include <cstring>
#include <random>
#include <vector>

namespace tk::checks {

namespace {
const char *sfName(ExpandCase::Sf sf) {
  switch (sf) {
  case ExpandCase::Sf::RowF32:
    return " sf=f32";
  case ExpandCase::Sf::ColF32:
    return " sf=f32,colmajor";
  case ExpandCase::Sf::ColPacked:
    return " sf=ue8m0,colmajor";
  default:
    return "";
  }
}

std::vector<unsigned char> randomBytes(size_t n, uint64_t seed) {
  std::vector<unsigned char> v(n);
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t r = rng();
    std::memcpy(v.data() + i, &r, std::min<size_t>(8, n - i));
  }
  return v;
}
} // namespace

std::string describe(const ExpandCase &c) {
  // "NxK e=local/total H=h dtype ...": the shape and words bench/peers/moe_layout_rows.py reads.
  return std::to_string(c.tokens) + "x" + std::to_string(c.topk) + " e=" + std::to_string(c.experts / c.ranks) + "/" +
         std::to_string(c.experts) + " H=" + std::to_string(c.hidden) + " " + kernels::dtypeName(c.dtype) +
         sfName(c.sf) + (c.sf != ExpandCase::Sf::None ? " C=" + std::to_string(c.perChannels) : "") +
         (c.edges ? " edges" : "");
}

CheckResult checkExpand(GpuSession *gpu, tk_context ctx, const ExpandCase &c, bool time) {
  CheckResult r;
  const int64_t n = c.tokens, k = c.topk, h = c.hidden, s = kernels::elementBytes(c.dtype);
  const std::vector<int64_t> ids = moeTopkIdx(n, k, c.experts, c.ranks, c.seed);
  kernels::moe::FusedMapping map = kernels::moe::fusedMappingReference(ids.data(), n, k, c.experts / c.ranks, 16);
  const int64_t m = map.positions;
  std::mt19937_64 rng(c.seed + 7);
  if (c.edges) // positions past M and negatives other than -1 name no row
    for (int32_t &p : map.tokenTopkToPos)
      if (p >= 0 && rng() % 9 == 0)
        p = rng() % 2 ? (int32_t)(m + rng() % 5) : -(int32_t)(2 + rng() % 5);
  std::vector<unsigned char> x = randomBytes(n * h * s, c.seed * 3 + 1);
  std::vector<unsigned char> ref(m * h * s, 0xEE), got(m * h * s);
  kernels::moe::expandReference(x.data(), n, k, map.tokenTopkToPos.data(), map.posToExpert.data(), m, h, s, false, 0,
                                ref.data());
  const bool withSf = c.sf != ExpandCase::Sf::None, packed = c.sf == ExpandCase::Sf::ColPacked,
             colMajor = c.sf == ExpandCase::Sf::ColF32 || packed;
  const int64_t blocks = (h + c.perChannels - 1) / c.perChannels, hs = packed ? (blocks + 3) / 4 : blocks,
                ld = colMajor ? (m + 3) / 4 * 4 : hs, sfElems = colMajor ? hs * ld : m * hs;
  std::vector<unsigned char> sf = randomBytes(withSf ? n * hs * 4 : 0, c.seed * 5 + 2);
  std::vector<unsigned char> sfRef(sfElems * 4, 0xEE), sfGot(sfElems * 4);
  if (withSf)
    kernels::moe::expandReference(sf.data(), n, k, map.tokenTopkToPos.data(), map.posToExpert.data(), m, hs, 4,
                                  colMajor, ld, sfRef.data());
  Placement p{gpu};
  void *dx = p.put(x.data(), x.size()), *dpos = p.put(map.tokenTopkToPos.data(), n * k * 4),
       *dexp = p.put(map.posToExpert.data(), m * 4), *dout = p.poisoned(got.data(), got.size(), 0xEE);
  tk_tensor tx = p.tensor(dx, c.dtype, {n, h}), tpos = p.tensor(dpos, TK_I32, {n, k}),
            texp = p.tensor(dexp, TK_I32, {m}), tout = p.tensor(dout, c.dtype, {m, h});
  void *dsf = nullptr, *dsfOut = nullptr;
  tk_tensor tsf{}, tsfOut{};
  const tk_dtype sfType = packed ? TK_I32 : TK_F32;
  if (withSf) {
    dsf = p.put(sf.data(), sf.size());
    dsfOut = p.poisoned(sfGot.data(), sfGot.size(), 0xEE);
    tsf = p.tensor(dsf, sfType, {n, hs});
    tsfOut = colMajor ? p.tensor(dsfOut, sfType, {m, hs}, {1, ld}) : p.tensor(dsfOut, sfType, {m, hs});
  }
  auto call = [&] {
    return withSf ? tk_expand_to_fused_with_sf(ctx, &tx, &tsf, c.perChannels, &tpos, &texp, colMajor ? 1 : 0, &tout,
                                               &tsfOut, nullptr)
                  : tk_expand_to_fused(ctx, &tx, &tpos, &texp, &tout, nullptr);
  };
  if (!r.called(call()))
    return r;
  p.get(got.data(), dout, got.size());
  for (int64_t row = 0; row < m; ++row)
    r.outMismatches += std::memcmp(got.data() + row * h * s, ref.data() + row * h * s, h * s) != 0;
  if (withSf) {
    p.get(sfGot.data(), dsfOut, sfGot.size());
    for (int64_t i = 0; i < sfElems; ++i)
      r.sfMismatches += std::memcmp(sfGot.data() + i * 4, sfRef.data() + i * 4, 4) != 0;
  }
  r.bytes = (double)(n * h * s + n * k * 4 + m * 4 + m * h * s) + (withSf ? 4.0 * (n * hs + m * hs) : 0.0);
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 3, 20);
  return r;
}

} // namespace tk::checks
