//===- top2_sum_gate_reference.cpp ----------------------------------------===//
#include "kernels/moe/top2_sum_gate_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tk::kernels::moe {

namespace {

/// Unbiased scores u of one row (step 3).
void scores(const Top2SumGateParams &p, const float *x, std::vector<float> &u) {
  const int64_t e = p.experts;
  if (p.scoring == Scoring::Softmax) {
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < e; ++i)
      m = std::max(m, x[i]);
    float z = 0.0f;
    for (int64_t i = 0; i < e; ++i)
      z += (u[i] = std::exp(x[i] - m));
    for (int64_t i = 0; i < e; ++i)
      u[i] = u[i] / z;
    return;
  }
  for (int64_t i = 0; i < e; ++i)
    u[i] = p.scoring == Scoring::Sigmoid ? 1.0f / (1.0f + std::exp(-x[i]))
                                         : std::sqrt(x[i] > 20.0f ? x[i] : std::log1p(std::exp(x[i])));
}

/// The first `k` of `candidates` under (score desc, id asc).
std::vector<int64_t> best(const std::vector<float> &score, std::vector<int64_t> candidates, int64_t k) {
  std::stable_sort(candidates.begin(), candidates.end(), [&](int64_t a, int64_t b) { return score[a] > score[b]; });
  candidates.resize(std::min<int64_t>(k, (int64_t)candidates.size()));
  return candidates;
}

} // namespace

void top2SumGateReference(const Top2SumGateParams &p, const float *logits, const float *bias, int64_t *ids,
                          float *weights, int64_t *unmapped) {
  const int64_t e = p.experts, k = p.topk, slots = p.slots();
  const int64_t x = p.physicalMap ? p.replicas - 1 : 0, perRank = (e + x) / p.epRanks;
  std::vector<float> u(e), b(e);
  for (int64_t t = 0; t < p.tokens; ++t) {
    int64_t *rowIds = ids + t * slots;
    float *rowWeights = weights + t * slots;
    if (p.mask && !p.mask[t]) { // step 1: a padding row
      std::fill(rowIds, rowIds + slots, -1);
      std::fill(rowWeights, rowWeights + slots, 0.0f);
      if (unmapped)
        std::fill(unmapped + t * k, unmapped + (t + 1) * k, -1);
      continue;
    }
    const float *row = logits + t * e;
    scores(p, row, u);
    for (int64_t i = 0; i < e; ++i) // step 4
      b[i] = (p.scoring == Scoring::Softmax ? row[i] : u[i]) + bias[i];
    std::vector<int64_t> sel;
    if (p.fixRouting && p.fixRouting[t]) { // step 5, fixed routing: the stored ids as they are
      sel.assign(unmapped + t * k, unmapped + (t + 1) * k);
    } else {
      std::vector<int64_t> candidates;
      if (p.groups > 0 && p.topkGroups < p.groups) { // step 5a: the Kg groups of best top-2 sums
        const int64_t epg = e / p.groups;
        std::vector<float> groupScore(p.groups);
        for (int64_t g = 0; g < p.groups; ++g) {
          std::vector<int64_t> members(epg);
          std::iota(members.begin(), members.end(), g * epg);
          std::vector<int64_t> top = best(b, members, 2);
          groupScore[g] = b[top[0]] + b[top[1]];
        }
        std::vector<int64_t> all(p.groups);
        std::iota(all.begin(), all.end(), 0);
        std::vector<int64_t> kept = best(groupScore, all, p.topkGroups);
        std::sort(kept.begin(), kept.end());
        for (int64_t g : kept)
          for (int64_t i = 0; i < epg; ++i)
            candidates.push_back(g * epg + i);
      } else {
        candidates.resize(e);
        std::iota(candidates.begin(), candidates.end(), 0);
      }
      sel = best(b, candidates, k); // step 5b
    }
    float d = 1e-20f; // step 7: in slot order
    for (int64_t i = 0; i < k; ++i)
      d += u[sel[i]];
    for (int64_t i = 0; i < k; ++i) {
      rowIds[i] = sel[i];
      rowWeights[i] = u[sel[i]] / d * p.routedScalingFactor;
    }
    if (unmapped) // step 8
      std::copy(sel.begin(), sel.end(), unmapped + t * k);
    for (int64_t i = k; i < slots; ++i) // step 9: shared experts
      rowIds[i] = e + (i - k), rowWeights[i] = 1.0f;
    for (int64_t i = 0; i < slots; ++i) {
      int64_t id = rowIds[i];
      if (p.physicalMap) { // step 10: replica (ep_rank + t 23333) mod n, in 64 bits, non-negative
        const int64_t n = p.logicalCount[id], h = p.epRank + t * 23333;
        // A count outside [1, X + 1] (data the spec requires inside) gives no expert, as the kernel does.
        id = n >= 1 && n <= p.replicas ? p.physicalMap[id * p.replicas + ((h % n) + n) % n] : -1;
      }
      // Step 11: -1 unless this TP rank owns the id's EP rank; then the dense local numbering. A negative physical
      // id (to_physical_map's data; the reference kernel passes it through) is an unused slot: -1 (moe.md 1).
      if (id >= 0) {
        const int64_t r = id / perRank;
        id = r % p.tpRanks != p.tpRank ? -1 : (r / p.tpRanks) * perRank + id % perRank;
      } else {
        id = -1;
      }
      rowIds[i] = id;
    }
  }
}

} // namespace tk::kernels::moe
