//===- reduce_fused_cases.cpp - reduce_fused's tests and rows -------------===//
#include "checks/operator_table.h"
#include "checks/reduce_fused_check.h"

TK_REGISTER_CASES(reduce_fused) {
  using namespace tk::checks;
  Table<ReduceFusedCase> t{"reduce_fused", checkReduceFused};
  // Every variant (in f32 / bf16, out same / e4m3 with sf, weights or not,
  // x_sf or not) at two routings; edges (positions past M, non-finite x, M = 0).
  auto variants = [](std::vector<ReduceFusedCase> &out, int64_t tokens, int64_t k, int64_t e, int64_t ranks,
                     int64_t h) {
    for (tk_dtype in : {TK_F32, TK_BF16})
      for (bool e4m3 : {false, true})
        for (bool weights : {true, false})
          for (bool rowScale : {false, true})
            out.push_back({tokens, k, e, ranks, h, in, e4m3, weights, rowScale, false, (uint64_t)(k + h)});
  };
  variants(t.cpu, 120, 6, 72, 8, 256);
  variants(t.cpu, 120, 9, 256, 64, 512);
  for (uint64_t seed : {1, 2}) // odd: no expert rows (M = 0)
    t.cpu.push_back({120, 8, 256, 8, 256, TK_BF16, true, true, true, true, seed});
  for (tk_dtype in : {TK_F32, TK_BF16}) // non-finite and underflowing products into an output of x's dtype
    for (bool weights : {true, false})
      t.cpu.push_back({120, 8, 72, 8, 256, in, false, weights, !weights, true, 4});
  // GPU: every variant on two grid points at H = 2048, the benchmark's
  // variant (bf16, weights) over the whole grid at two hidden sizes, the other sizes once, and edges.
  variants(t.gpu, moeGrid()[3].tokens, moeGrid()[3].topk, moeGrid()[3].experts, moeGrid()[3].ranks, 2048);
  variants(t.gpu, moeGrid()[11].tokens, moeGrid()[11].topk, moeGrid()[11].experts, moeGrid()[11].ranks, 2048);
  for (const MoeGridPoint &g : moeGrid())
    for (int64_t h : {2560, 7168})
      t.gpu.push_back({g.tokens, g.topk, g.experts, g.ranks, h});
  for (int64_t h : {3072, 4096, 6144})
    t.gpu.push_back({moeGrid()[4].tokens, moeGrid()[4].topk, moeGrid()[4].experts, moeGrid()[4].ranks, h});
  for (uint64_t seed : {1, 2})
    t.gpu.push_back({4001, 8, 256, 8, 7168, TK_BF16, true, true, true, true, seed});
  // Non-finite values into outputs of x's dtype (the e4m3 edges above write any NaN as 0x7F; these carry the GPU's
  // canonical NaN, which any NaN of the reference matches), at K = 2 (unrolled) and K = 8 (rolled, skipping).
  for (tk_dtype in : {TK_F32, TK_BF16})
    for (int64_t k : {2, 8})
      t.gpu.push_back({999, k, 72, 8, 2048, in, false, in == TK_F32, in == TK_BF16, true, 4});
  t.small = {{256, 6, 72, 8, 2048}, {100, 9, 256, 8, 512, TK_F32, true, false, true, true, 2}};
  // Rows: K = 6 with weights, bf16, H = 7168 (the spec's benchmark) over the
  // grid's K = 6 points.
  t.bench = [](const RowSelection &s) {
    std::vector<ReduceFusedCase> rows;
    for (const MoeGridPoint &g : moeGrid())
      if (g.topk == 6 || s.full)
        rows.push_back({g.tokens, g.topk, g.experts, g.ranks, 7168});
    if (s.headline)
      rows.resize(1);
    return rows;
  };
  registerTable(t);
}
