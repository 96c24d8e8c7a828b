//===- topk_group_idx_cases.cpp - topk_sum_and_topk_group_idx's tests, rows ===//
#include "checks/operator_table.h"
#include "checks/topk_group_idx_check.h"

#include <utility>

namespace tk::checks {
namespace {

/// The spec's (E, G) pairs with E % G == 0: 72 in 4, 8 or 12 groups, 256 in 4, 8 or 16.
std::vector<std::pair<int64_t, int64_t>> specGroups() {
  return {{72, 4}, {72, 8}, {72, 12}, {256, 4}, {256, 8}, {256, 16}};
}

} // namespace
} // namespace tk::checks

TK_REGISTER_CASES(topk_group_idx) {
  using namespace tk::checks;
  Table<TopkGroupIdxCase> t{"topk_sum_and_topk_group_idx", checkTopkGroupIdx};
  // CPU: every (E, G) x q x Kg of the spec on 37 tokens; ties and extremes on some.
  for (auto [e, g] : specGroups())
    for (int64_t q : {1, 2})
      for (int64_t kg : {2, 4}) {
        t.cpu.push_back({37, g, e / g, q, kg, ScoreValues::Normal, (uint64_t)(e + g + q + kg)});
        if (kg == 4)
          t.cpu.push_back({37, g, e / g, q, kg, q == 2 ? ScoreValues::Ties : ScoreValues::Extremes});
      }
  t.cpu.push_back({9, 32, 2, 2, 32, ScoreValues::Ties}); // every group ranked, epg = q
  // GPU: the spec's grid, N in {4001, 8001} x (E, G) x q x Kg, randn; ties and extremes on 4001 tokens.
  for (int64_t n : {4001, 8001})
    for (auto [e, g] : specGroups())
      for (int64_t q : {1, 2})
        for (int64_t kg : {2, 4})
          t.gpu.push_back({n, g, e / g, q, kg, ScoreValues::Normal, (uint64_t)(n + e + g + q + kg)});
  for (auto [e, g] : specGroups())
    for (ScoreValues v : {ScoreValues::Ties, ScoreValues::Extremes})
      t.gpu.push_back({4001, g, e / g, 2, 4, v});
  t.small = {{256, 8, 32, 2, 4}, {100, 12, 6, 1, 2, ScoreValues::Extremes}};
  // Rows: 8001 tokens of each (E, G) with q = 2, Kg = 4 (the full grid with --full); bytes = scores + group_idx.
  t.bench = [](const RowSelection &s) {
    std::vector<TopkGroupIdxCase> rows;
    for (int64_t n : s.full ? std::vector<int64_t>{4001, 8001} : std::vector<int64_t>{8001})
      for (auto [e, g] : specGroups())
        for (int64_t q : s.full ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{2})
          for (int64_t kg : s.full ? std::vector<int64_t>{2, 4} : std::vector<int64_t>{4})
            rows.push_back({n, g, e / g, q, kg});
    if (s.headline)
      rows.resize(1);
    return rows;
  };
  registerTable(t);
}
