//===- engram_cases.cpp - engram_hash's and fused_weight's tests and rows -===//
#include "checks/engram_check.h"
#include "checks/operator_table.h"

TK_REGISTER_CASES(engram) {
  using namespace tk::checks;
  // mhc_engram.md 4.1: N 3, Lh 2, E 8 at T in {4001, 8001} (and 0); other (N, Lh, E) and the edges on the CPU too.
  Table<EngramHashCase> hash{"engram_hash", checkEngramHash};
  hash.cpu = {{4001},
              {0},
              {1},
              {300, 3, 2, 8, true, 2},
              {257, 2, 1, 1, false, 3},
              {129, 5, 3, 6, true, 4},
              {64, 8, 1, 128, false, 5}};
  hash.gpu = {{4001}, {8001}, {0}, {8001, 3, 2, 8, true, 2}, {40001, 5, 3, 6, true, 4}, {1000, 8, 1, 128, false, 5}};
  hash.small = {{100}, {33, 4, 1, 5, true}};
  hash.bench = [](const RowSelection &) { return std::vector<EngramHashCase>{{4001}, {8001}}; };
  registerTable(hash);
  // 4.2: n 4, H in {2048, 2560, 3072, 4096, 6144, 7168}; H off the reference's multiples of 256 and the edges too.
  Table<FusedWeightCase> weight{"engram_fused_weight", checkFusedWeight};
  for (int64_t h : {2048, 2560, 3072, 4096, 6144, 7168})
    weight.gpu.push_back({4, h});
  weight.cpu = weight.gpu;
  weight.cpu.push_back({4, 100, true, 2});
  weight.cpu.push_back({3, 1, false, 3});
  weight.cpu.push_back({0, 256});
  weight.gpu.push_back({4, 7168, true, 2});
  weight.gpu.push_back({3, 1001, true, 3});
  weight.small = {{4, 2048}, {2, 77, true}};
  weight.bench = [](const RowSelection &) {
    std::vector<FusedWeightCase> rows;
    for (int64_t h : {2048, 2560, 3072, 4096, 6144, 7168})
      rows.push_back({4, h});
    return rows;
  };
  registerTable(weight);
}
