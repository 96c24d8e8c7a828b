//===- fused_mapping_reference.cpp - the C++ reference --------------------===//
#include "kernels/moe/fused_mapping.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace tk::kernels::moe {

FusedMapping fusedMappingReference(const int64_t *topkIdx, int64_t tokens, int64_t topk, int64_t experts,
                                   int64_t alignment, int64_t positions) {
  FusedMapping m;
  const int64_t slots = tokens * topk;
  std::vector<int64_t> counts(experts, 0);
  for (int64_t f = 0; f < slots; ++f)
    if (topkIdx[f] >= 0 && topkIdx[f] < experts)
      ++counts[topkIdx[f]];
  m.expertStart.resize(experts);
  m.expertEnd.resize(experts);
  m.alignedCounts.resize(experts);
  int64_t total = 0;
  for (int64_t e = 0; e < experts; ++e) {
    const int64_t aligned = (counts[e] + alignment - 1) / alignment * alignment;
    m.expertStart[e] = (int32_t)total;
    m.alignedCounts[e] = (int32_t)aligned;
    total += aligned;
    m.expertEnd[e] = (int32_t)total;
  }
  if (positions && positions < total)
    throw std::invalid_argument("fusedMappingReference: " + std::to_string(positions) + " positions for " +
                                std::to_string(total) + " aligned slots");
  m.positions = positions ? positions : total;
  m.posToExpert.assign(m.positions, -1);
  m.posToToken.assign(m.positions, -1);
  m.posToTokenTopk.assign(m.positions, -1);
  m.tokenTopkToPos.assign(slots, -1);
  std::vector<int64_t> next(m.expertStart.begin(), m.expertStart.end());
  for (int64_t f = 0; f < slots; ++f) {
    const int64_t e = topkIdx[f];
    if (e < 0 || e >= experts) // an empty slot, as -1
      continue;
    const int64_t p = next[e]++;
    m.tokenTopkToPos[f] = (int32_t)p;
    m.posToExpert[p] = (int32_t)e;
    m.posToToken[p] = (int32_t)(f / topk);
    m.posToTokenTopk[p] = (int32_t)f;
  }
  return m;
}

} // namespace tk::kernels::moe
