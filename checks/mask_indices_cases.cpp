//===- mask_indices_cases.cpp - mask_indices_by_tp's tests and rows -------===//
#include "checks/mask_indices_check.h"
#include "checks/normalize_weight_check.h"
#include "checks/operator_table.h"

TK_REGISTER_CASES(mask_indices) {
  using namespace tk::checks;
  Table<MaskIndicesCase> t{"mask_indices_by_tp", checkMaskIndices};
  // CPU: Tp in {1, 2, 4, 8} x every rank of it x both dtypes, global ids of
  // 72 or 256 experts over 8 EP ranks (so every rank keeps some).
  for (int32_t tp : {1, 2, 4, 8})
    for (int32_t rank = 0; rank < tp; ++rank)
      for (tk_dtype d : {TK_I64, TK_I32})
        t.cpu.push_back({97, 6, rank % 2 ? 256 : 72, 8, tp, rank, d, (uint64_t)(tp * 10 + rank)});
  // GPU: the spec's MoE grid (routed token counts, K, E over EP ranks) x Tp in {2, 4, 8}, a rank of each.
  for (const MoeGridPoint &g : moeGrid())
    for (int32_t tp : {2, 4, 8})
      t.gpu.push_back({g.tokens, g.topk, g.experts, g.ranks, tp, (int32_t)(g.tokens % tp), TK_I64});
  for (int32_t rank = 0; rank < 8; ++rank)
    t.gpu.push_back({40001, 8, 256, 8, 8, rank, TK_I32});
  t.small = {{256, 8, 256, 8, 4, 1}, {100, 6, 72, 8, 2, 0, TK_I32}};
  // Rows: the largest routed counts (ep 64) with Tp 8; bytes = ids in + out.
  t.bench = [](const RowSelection &s) {
    std::vector<MaskIndicesCase> rows;
    for (const MoeGridPoint &g : moeGrid())
      if (g.ranks == 64 || s.full)
        rows.push_back({g.tokens, g.topk, g.experts, g.ranks, 8, 3, TK_I64});
    if (s.headline)
      rows.resize(1);
    return rows;
  };
  registerTable(t);
}
