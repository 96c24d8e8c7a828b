//===- normalize_weight_cases.cpp - normalize_weight's tests and rows -----===//
#include "checks/normalize_weight_check.h"
#include "checks/operator_table.h"

TK_REGISTER_CASES(normalize_weight) {
  using namespace tk::checks;
  Table<NormalizeWeightCase> t{"normalize_weight", checkNormalizeWeight};
  // CPU: K in {1, 2, 6, 8, 9, 64} on a few hundred tokens (a partial CTA),
  // uniform weights and edges (all-zero rows, negative and subnormal weights).
  for (int64_t k : {1, 2, 6, 8, 9, 64})
    for (bool edges : {false, true})
      t.cpu.push_back({300, k, edges, (uint64_t)k});
  // GPU: the spec's MoE grid (moe.md 4.1: weights rand of shape (N', K)), and edges.
  for (const MoeGridPoint &g : moeGrid())
    t.gpu.push_back({g.tokens, g.topk, false, (uint64_t)g.ranks});
  for (int64_t k : {2, 9})
    t.gpu.push_back({40001, k, true});
  t.small = {{256, 8}, {100, 9, true}};
  // Rows: the MoE grid's largest counts per K (ep 64); bytes = weights + both outputs.
  t.bench = [](const RowSelection &s) {
    std::vector<NormalizeWeightCase> rows;
    for (const MoeGridPoint &g : moeGrid())
      if (g.ranks == 64 || s.full)
        rows.push_back({g.tokens, g.topk});
    if (s.headline)
      rows.resize(1);
    return rows;
  };
  registerTable(t);
}
