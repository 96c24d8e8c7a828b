//===- topk_gate_cases.cpp - topk_gate's tests and rows (moe.md 2.1) ------===//
#include "checks/operator_table.h"
#include "checks/topk_gate_check.h"

#include <utility>

namespace tk::checks {
namespace {

/// The spec's (E, K) pairs.
std::vector<std::pair<int64_t, int64_t>> specShapes() {
  return {{72, 6}, {32, 6}, {64, 6}, {96, 6}, {16, 6}, {36, 6}, {108, 6}, {128, 6}, {144, 6}, {256, 8}};
}

} // namespace
} // namespace tk::checks

TK_REGISTER_CASES(topk_gate) {
  Table<TopkGateCase> t{"topk_gate", checkTopkGate};
  // CPU: every (E, K) of the spec on a few tokens, with ties (+-0 among
  // them) and extremes (+-inf, NaN, subnormals); K = 1 and K = E.
  for (auto [e, k] : specShapes())
    for (ScoreValues v : {ScoreValues::Normal, ScoreValues::Ties, ScoreValues::Extremes})
      t.cpu.push_back({37, e, k, v, (uint64_t)(e + k)});
  t.cpu.push_back({5, 72, 1, ScoreValues::Ties});
  t.cpu.push_back({5, 16, 16, ScoreValues::Extremes});
  t.cpu.push_back({3, 1000, 9, ScoreValues::Normal}); // the widest tile below the limit
  // GPU: the spec's grid, N in {4001, 8001} x (E, K), randn; and ties and
  // extremes on 4001 tokens.
  for (int64_t n : {4001, 8001})
    for (auto [e, k] : specShapes())
      t.gpu.push_back({n, e, k, ScoreValues::Normal, (uint64_t)(n + e)});
  for (auto [e, k] : specShapes())
    for (ScoreValues v : {ScoreValues::Ties, ScoreValues::Extremes})
      t.gpu.push_back({4001, e, k, v, (uint64_t)(e * 3 + k)});
  t.small = {{256, 72, 6}, {256, 256, 8, ScoreValues::Ties}, {100, 16, 6, ScoreValues::Extremes}};
  // Rows: the spec's benchmark grid (its test grid without N = 0); bytes =
  // scores + topk_idx. The headline: 8001 x 256, K = 8.
  t.bench = [](const RowSelection &s) {
    std::vector<TopkGateCase> rows = {{8001, 256, 8}};
    if (s.headline)
      return rows;
    for (int64_t n : {4001, 8001})
      for (auto [e, k] : specShapes())
        if (s.full || e == 72 || e == 256 || e == 16)
          if (!(n == 8001 && e == 256))
            rows.push_back({n, e, k});
    return rows;
  };
  registerTable(t);
}
