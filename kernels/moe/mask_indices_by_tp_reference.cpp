//===- mask_indices_by_tp_reference.cpp - the C++ reference ---------------===//
#include "kernels/moe/mask_indices_by_tp.h"

#include <cstdint>

namespace tk::kernels::moe {

using namespace tk::dsl;

int64_t maskIndexReference(int64_t v, int64_t perRank, int64_t tpRanks, int64_t tpRank) {
  if (v < 0 || (v / perRank) % tpRanks != tpRank)
    return -1;
  const int64_t local = (v / perRank) / tpRanks * perRank + v % perRank;
  return local < 0 ? -1 : local;
}

} // namespace tk::kernels::moe
