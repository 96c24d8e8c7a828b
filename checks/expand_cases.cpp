//===- expand_cases.cpp - expand_to_fused[_with_sf]'s tests and rows ------===//
#include "checks/expand_check.h"
#include "checks/operator_table.h"

namespace {
const int64_t kHidden[] = {576, 2048, 2560, 3072, 4096, 6144, 7168}; // moe.md 4.1's hidden sizes
} // namespace

TK_REGISTER_CASES(expand) {
  using namespace tk::checks;
  using Sf = ExpandCase::Sf;
  Table<ExpandCase> t{"expand_to_fused", checkExpand};
  // CPU: K in {1, 2, 6, 9} over 72 / 8 and 256 / 64 experts, H 576 and 2048,
  // bf16; f32, e4m3 and i64 rows; slots naming no row.
  for (int64_t k : {1, 2, 6, 9})
    for (auto [e, ranks] : std::vector<std::pair<int64_t, int64_t>>{{72, 8}, {256, 64}})
      for (int64_t h : {576, 2048})
        t.cpu.push_back({150, k, e, ranks, h, TK_BF16, Sf::None, 128, false, (uint64_t)(k * 10 + h)});
  for (tk_dtype d : {TK_F32, TK_F8_E4M3, TK_I64})
    t.cpu.push_back({150, 6, 72, 8, 576, d});
  t.cpu.push_back({150, 9, 72, 8, 2048, TK_BF16, Sf::None, 128, true});
  // GPU: the spec's MoE grid x hidden sizes (bf16), and the edge cases.
  for (const MoeGridPoint &g : moeGrid())
    for (int64_t h : kHidden)
      t.gpu.push_back({g.tokens, g.topk, g.experts, g.ranks, h, TK_BF16, Sf::None, 128, false, (uint64_t)h});
  t.gpu.push_back({40001, 9, 256, 8, 7168, TK_BF16, Sf::None, 128, true});
  t.gpu.push_back({4001, 6, 72, 8, 576, TK_F8_E4M3, Sf::None, 128, true});
  t.small = {{256, 8, 256, 8, 2048}, {100, 6, 72, 8, 576, TK_F32, Sf::None, 128, true}};
  // Rows: the benchmark's H = 7168 over the grid's largest counts (ep 8, 256 experts).
  t.bench = [](const RowSelection &s) {
    std::vector<ExpandCase> rows;
    for (const MoeGridPoint &g : moeGrid())
      if ((g.ranks == 8 && g.experts == 256) || s.full)
        rows.push_back({g.tokens, g.topk, g.experts, g.ranks, 7168});
    if (s.headline)
      rows.resize(1);
    return rows;
  };
  registerTable(t);

  Table<ExpandCase> w{"expand_to_fused_with_sf", checkExpand};
  // The spec's (C, layout) pairs: f32 row-major sf and packed UE8M0
  // column-major, plus f32 column-major.
  const std::vector<std::pair<int32_t, Sf>> layouts = {
      {32, Sf::RowF32}, {128, Sf::RowF32}, {32, Sf::ColPacked}, {128, Sf::ColPacked}, {128, Sf::ColF32}};
  for (auto [perChannels, sf] : layouts)
    for (int64_t k : {2, 9})
      for (int64_t h : {576, 2048})
        w.cpu.push_back({150, k, 72, 8, h, TK_F8_E4M3, sf, perChannels, false, (uint64_t)(k + h)});
  w.cpu.push_back({150, 6, 256, 64, 2048, TK_F8_E4M3, Sf::ColPacked, 32, true});
  // GPU: the grid x four (H, C, layout) combinations covering both C, all three
  // layouts, H with a partial block.
  const std::vector<std::tuple<int64_t, int32_t, Sf>> gpuForms = {
      {576, 32, Sf::RowF32}, {2048, 128, Sf::ColPacked}, {7168, 128, Sf::ColF32}, {7168, 32, Sf::ColPacked}};
  for (const MoeGridPoint &g : moeGrid())
    for (auto [h, perChannels, sf] : gpuForms)
      w.gpu.push_back({g.tokens, g.topk, g.experts, g.ranks, h, TK_F8_E4M3, sf, perChannels, false, (uint64_t)h});
  w.gpu.push_back({40001, 9, 256, 8, 7168, TK_F8_E4M3, Sf::ColPacked, 32, true});
  w.small = {{256, 8, 256, 8, 2048, TK_F8_E4M3, Sf::ColPacked, 32}, {100, 6, 72, 8, 576, TK_F8_E4M3, Sf::RowF32, 32}};
  w.bench = [](const RowSelection &s) {
    std::vector<ExpandCase> rows;
    for (const MoeGridPoint &g : moeGrid())
      if ((g.ranks == 8 && g.experts == 256) || s.full)
        rows.push_back({g.tokens, g.topk, g.experts, g.ranks, 7168, TK_F8_E4M3, Sf::ColPacked, 128});
    if (s.headline)
      rows.resize(1);
    return rows;
  };
  registerTable(w);
}
