//===- unique_group_cases.cpp - inplace_unique_group_indices' tests, rows -===//
#include "checks/normalize_weight_check.h"
#include "checks/operator_table.h"
#include "checks/unique_group_check.h"

TK_REGISTER_CASES(unique_group) {
  using namespace tk::checks;
  Table<UniqueGroupCase> t{"inplace_unique_group_indices", checkUniqueGroups};
  // CPU: K in {2, 6, 8, 9} x groups in {8, 16, 72} of 288 experts, and edges.
  for (int64_t k : {2, 6, 8, 9})
    for (int64_t g : {8, 16, 72})
      t.cpu.push_back({300, k, 288, g, false, (uint64_t)(k * 100 + g)});
  for (int64_t k : {6, 9})
    t.cpu.push_back({300, k, 288, 8, true});
  // GPU: the spec's MoE grid x num_groups in {8, 16, 72} where E_total % num_groups == 0.
  for (const MoeGridPoint &m : moeGrid())
    for (int64_t g : {8, 16, 72})
      if (m.experts % g == 0)
        t.gpu.push_back({m.tokens, m.topk, m.experts, g, false, (uint64_t)(m.tokens + g)});
  t.gpu.push_back({40001, 9, 288, 8, true});
  t.small = {{256, 8, 256, 8}, {100, 9, 288, 16, true}};
  // Rows: the largest routed counts (ep 64), 8 groups; bytes = ids + 4 per changed id.
  t.bench = [](const RowSelection &s) {
    std::vector<UniqueGroupCase> rows;
    for (const MoeGridPoint &m : moeGrid())
      if (m.ranks == 64 || s.full)
        rows.push_back({m.tokens, m.topk, m.experts, 8});
    if (s.headline)
      rows.resize(1);
    return rows;
  };
  registerTable(t);
}
