//===- per_block_cast_cases.cpp - the per-block casts' tests and rows -----===//
//
// Each check runs all three entry points (cast, sf_only, precomputed_sf,
// quant.md 4.6-4.8) on one input, so the table of per_block_cast checks the
// other two as well.
//===----------------------------------------------------------------------===//
#include "checks/operator_table.h"
#include "checks/per_block_cast_check.h"

namespace tk::checks {
namespace {

void grid(std::vector<PerBlockCastCase> &cases, std::initializer_list<int64_t> ms, std::initializer_list<int64_t> ks,
          std::vector<uint32_t> flags, tk_format fmt = TK_FORMAT_E4M3) {
  for (int64_t m : ms)
    for (int64_t k : ks)
      for (auto [b, g] : std::vector<std::pair<int64_t, int64_t>>{{128, 128}, {32, 32}, {128, 32}, {32, 128}})
        for (tk_dtype in : {TK_BF16, TK_F32})
          for (uint32_t f : flags)
            cases.push_back({m, k, b, g, in, f, (uint64_t)(m + k), fmt});
}

const uint32_t kTTT = TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0;

std::vector<PerBlockCastCase> cpuGrid() {
  std::vector<PerBlockCastCase> cases;
  grid(cases, {1, 37, 200}, {576, 2048}, {0u, TK_ROUND_SF, TK_ROUND_SF | TK_SF_COL_MAJOR});
  grid(cases, {37, 200}, {576, 2048}, {kTTT});
  grid(cases, {200}, {576}, {kTTT}, TK_FORMAT_E2M1);
  grid(cases, {1, 37, 200}, {576, 2048}, {TK_ROUND_SF, TK_ROUND_SF | TK_SF_COL_MAJOR}, TK_FORMAT_E2M1);
  grid(cases, {129}, {7168}, {TK_ROUND_SF | TK_SF_COL_MAJOR}); // partial blocks
  grid(cases, {33}, {2560}, {TK_ROUND_SF});
  return cases;
}

/// M x K x {bf16, fp32} x the spec's flags (round) and (col, round, packed
/// UE8M0) x blocks (128, 128), (32, 32) x {e4m3, e2m1}.
std::vector<PerBlockCastCase> gpuGrid() {
  std::vector<PerBlockCastCase> cases;
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (uint32_t flags : {(uint32_t)TK_ROUND_SF, kTTT})
          for (int64_t b : {128, 32})
            for (tk_format fmt : {TK_FORMAT_E4M3, TK_FORMAT_E2M1})
              cases.push_back({m, k, b, b, in, flags, (uint64_t)(m * 7 + k), fmt});
  return cases;
}

} // namespace
} // namespace tk::checks

TK_REGISTER_CASES(per_block_cast) {
  Table<PerBlockCastCase> t{"per_block_cast", checkPerBlockCast};
  t.cpu = cpuGrid();
  t.gpu = gpuGrid();
  // The headline shape, (128, 128) and (32, 32) blocks; bytes = x + out + scale factors.
  t.bench = [](const RowSelection &s) {
    std::vector<PerBlockCastCase> rows = {{32768, 7168, 128, 128, TK_BF16, TK_ROUND_SF},
                                          {32768, 7168, 32, 32, TK_BF16, TK_ROUND_SF | TK_SF_COL_MAJOR}};
    if (s.headline)
      rows.resize(1);
    return rows;
  };
  t.small = {{256, 7168, 128, 128, TK_BF16, TK_ROUND_SF}, {100, 7168, 32, 32, TK_F32, TK_ROUND_SF | TK_SF_COL_MAJOR}};
  registerTable(t);
  for (const char *op : {"per_block_cast_with_sf_only", "per_block_cast_with_precomputed_sf"}) {
    Table<PerBlockCastCase> other{op, checkPerBlockCast};
    other.checkedWith = "per_block_cast";
    registerTable(other);
  }
}
