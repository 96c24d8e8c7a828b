//===- fused_mapping_cases.cpp - get_fused_mapping's tests and rows -------===//
#include "checks/fused_mapping_check.h"
#include "checks/operator_table.h"

TK_REGISTER_CASES(fused_mapping) {
  using namespace tk::checks;
  using S = FusedMappingCase::Sizing;
  Table<FusedMappingCase> t{"get_fused_mapping", checkFusedMapping};
  // CPU: K and E of the grid, both alignments, every sizing, ids outside [-1, E), no token, one expert, the most
  // experts (1024 bins), alignment 1, 560000 slots (a block's range longer than what Place keeps in shared memory).
  for (int64_t k : {1, 2, 6, 9})
    for (auto [e, ranks] : std::vector<std::pair<int64_t, int64_t>>{{72, 8}, {256, 8}, {256, 64}, {288, 1}})
      for (int64_t a : {64, 128})
        t.cpu.push_back({700, k, e, ranks, a, S::Exact, false, (uint64_t)(k * 7 + e + a)});
  t.cpu.push_back({700, 9, 256, 8, 128, S::UpperBound});
  t.cpu.push_back({700, 6, 256, 8, 64, S::Short});
  t.cpu.push_back({700, 9, 256, 8, 128, S::Exact, true});
  t.cpu.push_back({0, 6, 72, 8, 128, S::Exact});
  t.cpu.push_back({0, 6, 72, 8, 128, S::UpperBound});
  t.cpu.push_back({300, 8, 8, 8, 64});
  t.cpu.push_back({500, 8, 1024, 1, 128});
  t.cpu.push_back({500, 8, 1000, 1, 1, S::Exact, true});
  t.cpu.push_back({70000, 8, 256, 1, 128, S::UpperBound, true}); // blocks' ranges past the slots kept in shared memory
  // GPU: the spec's MoE grid with both alignments, exact (read back) and bounded sizing, edges, a short table, a
  // large count, the most experts.
  for (const MoeGridPoint &g : moeGrid())
    for (int64_t a : {64, 128})
      t.gpu.push_back({g.tokens, g.topk, g.experts, g.ranks, a, a == 64 ? S::Exact : S::UpperBound, false,
                       (uint64_t)(g.tokens + a)});
  t.gpu.push_back({40001, 9, 256, 8, 128, S::Exact, true});
  t.gpu.push_back({40001, 6, 256, 8, 64, S::Short});
  t.gpu.push_back({400001, 8, 384, 1, 128, S::UpperBound});
  t.gpu.push_back({20000, 8, 1024, 1, 1, S::Exact});
  t.gpu.push_back({0, 8, 256, 8, 128, S::Exact});
  t.small = {{256, 8, 256, 8, 128}, {100, 9, 72, 8, 64, S::Exact, true}};
  // Benchmark rows: the grid at A = 128 (the spec's), sized by the bound (no read-back).
  t.bench = [](const RowSelection &s) {
    std::vector<FusedMappingCase> out;
    for (const MoeGridPoint &g : moeGrid())
      if (g.ranks == 64 || s.full)
        out.push_back({g.tokens, g.topk, g.experts, g.ranks, 128, S::UpperBound});
    if (s.headline)
      out.resize(1);
    return out;
  };
  registerTable(t);
}
