//===- moe_inputs.cpp -----------------------------------------------------===//
#include "checks/moe_inputs.h"

#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace tk::checks {

std::vector<MoeGridPoint> moeGrid() {
  std::vector<MoeGridPoint> grid;
  for (int64_t k : {2, 6, 8, 9})
    for (auto [experts, ranks] : std::vector<std::pair<int64_t, int64_t>>{{72, 8}, {256, 8}, {256, 64}}) {
      const double kept = 1.0 - std::pow(1.0 - 1.0 / (double)ranks, (double)k);
      grid.push_back({(int64_t)std::llround(4001.0 * ranks * kept), k, experts, ranks});
    }
  return grid;
}

std::vector<int64_t> moeTopkIdx(int64_t tokens, int64_t topk, int64_t experts, int64_t ranks, uint64_t seed) {
  if (topk > experts || ranks < 1 || experts % ranks)
    throw std::invalid_argument("moeTopkIdx: needs K <= experts, divisible among the ranks");
  const int64_t local = experts / ranks;
  std::vector<int64_t> ids(tokens * topk), pool(experts);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + tokens * 131 + topk * 17 + experts);
  for (int64_t t = 0; t < tokens; ++t) {
    bool any = false;
    while (!any) {
      std::iota(pool.begin(), pool.end(), 0);
      for (int64_t s = 0; s < topk; ++s) { // K distinct experts (a partial shuffle)
        std::swap(pool[s], pool[s + (int64_t)(rng() % (uint64_t)(experts - s))]);
        const int64_t e = pool[s];
        ids[t * topk + s] = e < local ? e : -1;
        any = any || e < local;
      }
    }
  }
  return ids;
}

} // namespace tk::checks
