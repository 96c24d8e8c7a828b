//===- cast_back_cases.cpp - cast_back's tests and rows (quant.md 4.10-4.12) ===//
#include "checks/cast_back_check.h"
#include "checks/operator_table.h"

namespace tk::checks {
namespace {

using Blocks = std::vector<std::pair<int64_t, int64_t>>;

std::vector<CastBackCase> cpuGrid() {
  std::vector<CastBackCase> cases;
  for (int64_t m : {1, 37, 130})
    for (int64_t k : {576, 2048, 7168})
      for (auto [b, g] : Blocks{{1, 128}, {1, k}, {128, 1}, {128, 128}, {32, 32}})
        for (tk_dtype out : {TK_BF16, TK_F32})
          for (bool col : {false, true})
            cases.push_back({m, k, b, g, out, col, /*powerOfTwoSf=*/m == 37});
  // Packed e2m1 input (two codes per byte), per-token and blocked scales.
  for (int64_t k : {576, 2048})
    for (auto [b, g] : Blocks{{1, 32}, {1, k}, {128, 128}, {128, 1}})
      for (tk_dtype out : {TK_BF16, TK_F32})
        cases.push_back({37, k, b, g, out, false, true, false, TK_FORMAT_E2M1});
  // Packed e5m6 input (quant.md 4.12): g = K with row- and column-major and
  // packed scale factors, blocked scales, a K that is no multiple of 64.
  for (int64_t k : {576, 2048, 7176})
    for (auto [b, g] : Blocks{{1, k}, {1, 8}, {128, 128}})
      for (tk_dtype out : {TK_BF16, TK_F32})
        for (bool packed : {false, true})
          cases.push_back({37, k, b, g, out, packed, true, packed, TK_FORMAT_E5M6});
  // Packed UE8M0 scale factors (per-token and blocked).
  for (int64_t m : {37, 130})
    for (auto [b, g] : Blocks{{1, 128}, {1, 2048}, {128, 128}, {128, 1}, {32, 32}})
      for (tk_dtype out : {TK_BF16, TK_F32})
        cases.push_back({m, 2048, b, g, out, true, true, true});
  return cases;
}

/// Per-token: g in {128, K}, fp32 scale factors row- and column-major, packed
/// UE8M0 words (the spec's (T, T, T)), FP4 input; E5M6 input with g = K and
/// flags (F, T, F) and (T, T, T); blocked: (128, 1) and (128, 128) blocks,
/// plain and power-of-two scale factors; both output dtypes.
std::vector<CastBackCase> gpuGrid() {
  std::vector<CastBackCase> cases;
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (tk_dtype out : {TK_F32, TK_BF16}) {
        for (int64_t g : {(int64_t)128, k}) {
          for (bool col : {false, true})
            cases.push_back({m, k, 1, g, out, col, col});
          cases.push_back({m, k, 1, g, out, true, true, /*packedSf=*/true});
          cases.push_back({m, k, 1, g, out, false, true, false, TK_FORMAT_E2M1});
        }
        cases.push_back({m, k, 1, k, out, false, true, false, TK_FORMAT_E5M6});
        cases.push_back({m, k, 1, k, out, true, true, true, TK_FORMAT_E5M6});
        for (int64_t g : {1, 128})
          for (bool pow2 : {false, true})
            cases.push_back({m, k, 128, g, out, false, pow2});
      }
  return cases;
}

} // namespace
} // namespace tk::checks

TK_REGISTER_CASES(cast_back) {
  Table<CastBackCase> t{"cast_back", checkCastBack};
  t.cpu = cpuGrid();
  t.gpu = gpuGrid();
  // The headline shape with per-token and blocked scale factors; bytes = xq + scale factors + out.
  t.bench = [](const RowSelection &s) {
    std::vector<CastBackCase> rows = {{32768, 7168, 1, 128, TK_BF16}, {32768, 7168, 1, 128, TK_F32},
                                      {32768, 7168, 128, 128, TK_BF16}, {32768, 7168, 128, 1, TK_BF16},
                                      {32768, 7168, 1, 32, TK_BF16, true, true, true, TK_FORMAT_E2M1},
                                      {32768, 7168, 1, 7168, TK_BF16, false, true, false, TK_FORMAT_E5M6}};
    if (s.headline)
      rows.resize(1);
    return rows;
  };
  t.small = {{256, 7168, 1, 128, TK_BF16}, {256, 7168, 128, 128, TK_F32, true}, {256, 7168, 128, 1, TK_BF16},
             {100, 7168, 1, 32, TK_BF16, false, false, false, TK_FORMAT_E2M1},
             {100, 7168, 1, 7168, TK_BF16, false, false, false, TK_FORMAT_E5M6}};
  registerTable(t);
}
