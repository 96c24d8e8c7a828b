//===- moe_routing.cpp ----------------------------------------------------===//
#include "checks/moe_routing.h"
#include "kernels/moe/expand_to_fused.h"
#include "kernels/moe/fused_mapping.h"
#include "kernels/moe/normalize_weight.h"
#include "kernels/moe/reduce_fused.h"
#include "kernels/moe/topk_gate.h"

#include <cstring>
#include <random>
#include <vector>

namespace tk::checks {

namespace {

/// Counts the elements of `got` that differ in bits from `want`, naming the first.
template <typename T>
void compare(MoeRoutingResult &r, const char *what, const std::vector<T> &got, const std::vector<T> &want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0 && r.mismatches++ == 0)
      r.firstMismatch = std::string(what) + "[" + std::to_string(i) + "]";
}

std::vector<float> standInExpert(const std::vector<float> &rows, const std::vector<int32_t> &posToExpert,
                                 int64_t hidden) {
  std::vector<float> out(rows.size());
  for (size_t p = 0; p < posToExpert.size(); ++p)
    for (int64_t h = 0; h < hidden; ++h)
      out[p * hidden + h] = rows[p * hidden + h] * (1.0f + (float)std::max(posToExpert[p], 0) / 8.0f);
  return out;
}

} // namespace

MoeRoutingResult runMoeRouting(tk_context ctx, GpuSession *gpu, const MoeRoutingCase &c) {
  MoeRoutingResult r;
  const int64_t n = c.tokens, e = c.experts, k = c.topk, h = c.hidden, f = n * k;
  std::mt19937 rng((uint32_t)c.seed);
  std::normal_distribution<float> normal;
  std::vector<float> scores(n * e), x(n * h);
  for (float &v : scores)
    v = normal(rng);
  for (float &v : x)
    v = normal(rng);
  Placement p{gpu};
  auto fail = [&](const char *call) {
    r.error = std::string(call) + ": " + tk_last_error();
    return r;
  };

  // 1. The gate: the K best experts of each token, then their scores normalized.
  void *dscores = p.put(scores.data(), scores.size() * 4);
  std::vector<int64_t> ids(f);
  void *dids = p.poisoned(ids.data(), f * 8, 0xEE);
  tk_tensor tscores = p.tensor(dscores, TK_F32, {n, e}), tids = p.tensor(dids, TK_I64, {n, k});
  if (tk_topk_gate(ctx, &tscores, (int32_t)k, &tids, nullptr) != TK_SUCCESS)
    return fail("tk_topk_gate");
  p.get(ids.data(), dids, f * 8);
  std::vector<float> chosen(f), den(n), weights(f);
  for (int64_t i = 0; i < f; ++i) // the router's probabilities of the chosen experts (top2_sum_gate fuses this)
    chosen[i] = scores[(i / k) * e + (ids[i] >= 0 && ids[i] < e ? ids[i] : 0)];
  void *dchosen = p.put(chosen.data(), f * 4), *dden = p.poisoned(den.data(), n * 4, 0xEE),
       *dweights = p.poisoned(weights.data(), f * 4, 0xEE);
  tk_tensor tchosen = p.tensor(dchosen, TK_F32, {n, k}), tden = p.tensor(dden, TK_F32, {n}),
            tweights = p.tensor(dweights, TK_F32, {n, k});
  if (tk_normalize_weight(ctx, &tchosen, &tden, &tweights, nullptr) != TK_SUCCESS)
    return fail("tk_normalize_weight");
  p.get(weights.data(), dweights, f * 4);

  // 2. The mapping, its tables sized by the bound and the exact total read back.
  const int64_t bound = tk_fused_mapping_max_positions(n, k, e, c.alignment);
  std::vector<std::vector<int32_t>> maps = {
      std::vector<int32_t>(bound), std::vector<int32_t>(bound), std::vector<int32_t>(bound), std::vector<int32_t>(f),
      std::vector<int32_t>(e),     std::vector<int32_t>(e),     std::vector<int32_t>(e)};
  std::vector<void *> dmaps;
  std::vector<tk_tensor> tmaps;
  for (size_t i = 0; i < maps.size(); ++i) {
    dmaps.push_back(p.poisoned(maps[i].data(), maps[i].size() * 4, 0xEE));
    tmaps.push_back(i == 3 ? p.tensor(dmaps[i], TK_I32, {n, k})
                           : p.tensor(dmaps[i], TK_I32, {(int64_t)maps[i].size()}));
  }
  if (tk_get_fused_mapping(ctx, &tids, (int32_t)e, (int32_t)c.alignment, &tmaps[0], &tmaps[1], &tmaps[2], &tmaps[3],
                           &tmaps[4], &tmaps[5], &tmaps[6], &r.positions, nullptr) != TK_SUCCESS)
    return fail("tk_get_fused_mapping");
  for (size_t i = 0; i < maps.size(); ++i)
    p.get(maps[i].data(), dmaps[i], maps[i].size() * 4);

  // 3. Expansion into the expert-major rows, the experts (on the host here), the weighted sum back.
  std::vector<float> expanded(bound * h), out(n * h);
  void *dx = p.put(x.data(), x.size() * 4), *dexpanded = p.poisoned(expanded.data(), expanded.size() * 4, 0xEE);
  tk_tensor tx = p.tensor(dx, TK_F32, {n, h}), texpanded = p.tensor(dexpanded, TK_F32, {bound, h});
  if (tk_expand_to_fused(ctx, &tx, &tmaps[3], &tmaps[0], &texpanded, nullptr) != TK_SUCCESS)
    return fail("tk_expand_to_fused");
  p.get(expanded.data(), dexpanded, expanded.size() * 4);
  std::vector<float> experts = standInExpert(expanded, maps[0], h);
  void *dexperts = p.put(experts.data(), experts.size() * 4), *dout = p.poisoned(out.data(), out.size() * 4, 0xEE);
  tk_tensor texperts = p.tensor(dexperts, TK_F32, {bound, h}), tout = p.tensor(dout, TK_F32, {n, h});
  if (tk_reduce_fused(ctx, &texperts, nullptr, &tweights, &tmaps[3], nullptr, &tout, nullptr) != TK_SUCCESS)
    return fail("tk_reduce_fused");
  p.get(out.data(), dout, out.size() * 4);

  // The same composition of the references.
  using namespace kernels::moe;
  std::vector<int64_t> refIds(f);
  topkGateReference(scores.data(), n, e, k, refIds.data());
  std::vector<float> refChosen(f), refDen(n), refWeights(f);
  for (int64_t i = 0; i < f; ++i)
    refChosen[i] = scores[(i / k) * e + refIds[i]];
  normalizeWeightReference(refChosen.data(), n, k, refDen.data(), refWeights.data());
  const FusedMapping ref = fusedMappingReference(refIds.data(), n, k, e, c.alignment, bound);
  std::vector<float> refExpanded(bound * h), refOut(n * h);
  expandReference(x.data(), n, k, ref.tokenTopkToPos.data(), ref.posToExpert.data(), bound, h, 4, false, 0,
                  refExpanded.data());
  std::vector<float> refExperts = standInExpert(refExpanded, ref.posToExpert, h);
  reduceFusedReference(refExperts.data(), bound, h, nullptr, refWeights.data(), ref.tokenTopkToPos.data(), n, k,
                       nullptr, refOut.data());
  compare(r, "topk_idx", ids, refIds);
  compare(r, "normalized_weights", weights, refWeights);
  const std::vector<const std::vector<int32_t> *> refMaps = {&ref.posToExpert,    &ref.posToToken,  &ref.posToTokenTopk,
                                                             &ref.tokenTopkToPos, &ref.expertStart, &ref.expertEnd,
                                                             &ref.alignedCounts};
  const char *names[] = {"pos_to_expert", "pos_to_token", "pos_to_token_topk",    "token_topk_to_pos",
                         "expert_start",  "expert_end",   "num_tokens_per_expert"};
  for (size_t i = 0; i < maps.size(); ++i)
    compare(r, names[i], maps[i], *refMaps[i]);
  r.mismatches += r.positions != (int64_t)ref.expertEnd.back();
  compare(r, "expanded_x", expanded, refExpanded);
  compare(r, "out", out, refOut);
  return r;
}

} // namespace tk::checks
