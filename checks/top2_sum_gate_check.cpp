//===- top2_sum_gate_check.cpp --------------------------------------------===//
#include "checks/top2_sum_gate_check.h"
#include "kernels/moe/top2_sum_gate_reference.h"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <random>
#include <vector>

namespace tk::checks {

std::string describe(const Top2SumGateCase &c) {
  static const char *scorings[] = {"sigmoid", "sqrtsoftplus", "softmax"};
  return std::to_string(c.tokens + c.padded) + "x" + std::to_string(c.experts) + " K=" + std::to_string(c.topk) +
         (c.shared ? " S=" + std::to_string(c.shared) : "") + " " + scorings[c.scoring] +
         (c.groups ? " G=" + std::to_string(c.groups) + " Kg=" + std::to_string(c.topkGroups) : "") +
         " tp=" + std::to_string(c.tpRank) + (c.padded ? " padded=" + std::to_string(c.padded) : "") +
         (c.fixed ? " fixed" : "") + (c.farIds ? " far" : "") +
         (c.replicas ? " replicas=" + std::to_string(c.replicas) : "");
}

CheckResult checkTop2SumGate(GpuSession *gpu, tk_context ctx, const Top2SumGateCase &c, bool time) {
  using namespace kernels::moe;
  CheckResult r;
  const int64_t n = c.tokens + c.padded, e = c.experts, k = c.topk, s = c.shared, p = k + s,
                x = s ? (c.replicas ? c.replicas - 1 : 32) : 0;
  Top2SumGateParams params;
  params.tokens = n, params.experts = e, params.topk = k, params.sharedSlots = s, params.routedScalingFactor = 1.5f;
  params.epRank = c.replicas ? INT32_MAX - 3 : 0, params.epRanks = 4, params.tpRank = c.tpRank, params.tpRanks = 2;
  params.scoring = (Scoring)c.scoring, params.groups = c.groups, params.topkGroups = c.topkGroups;
  std::vector<uint8_t> mask(n, 1), fix(n, c.fixed ? 1 : 0);
  for (int64_t t = c.tokens; t < n; ++t)
    mask[t] = 0;
  std::vector<int32_t> map, count;
  if (s) { // the identity replica table: x + 1 columns of l (farIds: ids near INT32_MAX, every fifth negative;
           // replicas: columns of their own)
    map.resize((e + s) * (x + 1)), count.assign(e + s, 1);
    std::mt19937 countRng((uint32_t)c.seed + 17);
    for (int64_t l = 0; l < e + s; ++l) {
      const int64_t far = l % 5 == 4 ? -2 - l : INT32_MAX - l * 104729;
      std::fill(map.begin() + l * (x + 1), map.begin() + (l + 1) * (x + 1), (int32_t)(c.farIds ? far : l));
      if (c.replicas) { // column d of l: a physical id of its own; n drawn in [1, X + 1], X + 1 among them
        for (int64_t d = 0; d <= x; ++d)
          map[l * (x + 1) + d] = (int32_t)((l * 131 + d * 7) % (e + x));
        count[l] = l == 0 ? (int32_t)(x + 1) : (int32_t)(1 + countRng() % (x + 1));
      }
    }
    params.physicalMap = map.data(), params.logicalCount = count.data(), params.replicas = x + 1;
  }
  params.mask = c.padded ? mask.data() : nullptr, params.fixRouting = c.fixed ? fix.data() : nullptr;
  // Logits and bias ~ N(0, 1); a row is drawn again while the Kg-th and (Kg+1)-th group scores come closer than
  // 1e-6 or the top-K + 1 candidates' selection scores closer than 2e-6 (moe.md 2.3's filter).
  std::mt19937 rng((uint32_t)c.seed);
  std::normal_distribution<float> normal;
  std::vector<float> logits(n * e), bias(e);
  for (float &v : bias)
    v = normal(rng);
  for (int64_t t = 0; t < n; ++t)
    for (int tries = 0; tries < 100; ++tries) {
      for (int64_t i = 0; i < e; ++i)
        logits[t * e + i] = normal(rng);
      std::vector<float> b(e);
      for (int64_t i = 0; i < e; ++i) {
        const float v = logits[t * e + i];
        const float u = c.scoring == TK_SCORING_SIGMOID        ? 1.0f / (1.0f + std::exp(-v))
                        : c.scoring == TK_SCORING_SQRTSOFTPLUS ? std::sqrt(v > 20 ? v : std::log1p(std::exp(v)))
                                                               : 0.0f;
        b[i] = (c.scoring == TK_SCORING_SOFTMAX ? v : u) + bias[i];
      }
      bool apart = true;
      if (c.groups > 0 && c.topkGroups < c.groups) {
        const int64_t epg = e / c.groups;
        std::vector<std::pair<float, int64_t>> groupScores;
        for (int64_t g = 0; g < c.groups; ++g) {
          std::vector<float> m(b.begin() + g * epg, b.begin() + (g + 1) * epg);
          std::partial_sort(m.begin(), m.begin() + 2, m.end(), std::greater<float>());
          groupScores.push_back({m[0] + m[1], g});
        }
        std::stable_sort(groupScores.begin(), groupScores.end(),
                         [](const auto &x, const auto &y) { return x.first > y.first; });
        apart = groupScores[c.topkGroups - 1].first - groupScores[c.topkGroups].first > 1e-6f;
        std::vector<float> candidates;
        for (int64_t r = 0; r < c.topkGroups; ++r)
          candidates.insert(candidates.end(), b.begin() + groupScores[r].second * epg,
                            b.begin() + (groupScores[r].second + 1) * epg);
        b = candidates;
      }
      std::sort(b.begin(), b.end(), std::greater<float>());
      for (int64_t i = 0; i < std::min<int64_t>(k, (int64_t)b.size() - 1); ++i)
        apart = apart && b[i] - b[i + 1] > 2e-6f;
      if (apart)
        break;
    }
  std::vector<int64_t> stored(n * k);
  std::mt19937_64 fixedRng(42);
  for (int64_t &v : stored)
    v = c.fixed ? (int64_t)(fixedRng() % e) : 0;
  std::vector<int64_t> refIds(n * p), refUnmapped = stored;
  std::vector<float> refWeights(n * p);
  top2SumGateReference(params, logits.data(), bias.data(), refIds.data(), refWeights.data(), refUnmapped.data());

  Placement pl{gpu};
  std::vector<int64_t> ids(n * p), unmapped = stored;
  std::vector<float> weights(n * p);
  void *dl = pl.put(logits.data(), logits.size() * 4), *db = pl.put(bias.data(), e * 4);
  void *dmask = pl.put(mask.data(), std::max<int64_t>(n, 1)), *dfix = pl.put(fix.data(), std::max<int64_t>(n, 1));
  void *dmap = s ? pl.put(map.data(), map.size() * 4) : nullptr,
       *dcount = s ? pl.put(count.data(), count.size() * 4) : nullptr;
  void *dunmapped = pl.put(unmapped.data(), unmapped.size() * 8), *dids = pl.poisoned(ids.data(), ids.size() * 8, 0xEE),
       *dweights = pl.poisoned(weights.data(), weights.size() * 4, 0xEE);
  tk_tensor tl = pl.tensor(dl, TK_F32, {n, e}), tb = pl.tensor(db, TK_F32, {e}), tmask = pl.tensor(dmask, TK_U8, {n}),
            tfix = pl.tensor(dfix, TK_U8, {n}), tunmapped = pl.tensor(dunmapped, TK_I64, {n, k}),
            tids = pl.tensor(dids, TK_I64, {n, p}), tweights = pl.tensor(dweights, TK_F32, {n, p});
  tk_tensor tmap = s ? pl.tensor(dmap, TK_I32, {e + s, x + 1}) : tk_tensor{},
            tcount = s ? pl.tensor(dcount, TK_I32, {e + s}) : tk_tensor{};
  auto call = [&] {
    return tk_top2_sum_gate(ctx, &tl, &tb, (int32_t)k, (int32_t)c.topkGroups, (int32_t)c.groups, s ? 1 : 0, (int32_t)s,
                            1.5f, (int32_t)params.epRank, 4, (int32_t)c.tpRank, 2, c.scoring,
                            c.padded ? &tmask : nullptr, c.fixed ? &tfix : nullptr, s ? &tmap : nullptr,
                            s ? &tcount : nullptr, &tunmapped, &tids, &tweights, nullptr);
  };
  if (!r.called(call()))
    return r;
  pl.get(ids.data(), dids, ids.size() * 8);
  pl.get(unmapped.data(), dunmapped, unmapped.size() * 8);
  pl.get(weights.data(), dweights, weights.size() * 4);
  for (int64_t i = 0; i < n * p; ++i) {
    r.outMismatches += ids[i] != refIds[i];
    r.sfMismatches += !(std::fabs(weights[i] - refWeights[i]) <= 1e-8f + 1e-5f * std::fabs(refWeights[i]));
  }
  for (int64_t i = 0; i < n * k; ++i)
    r.countMismatches += unmapped[i] != refUnmapped[i];
  r.bytes = 4.0 * (n * e + e);
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 3, 20);
  return r;
}

} // namespace tk::checks
