//===- fused_mhc_cases.cpp - big_fuse's and multilayer_recompute's tests and rows ===//
#include "checks/fused_mhc_check.h"
#include "checks/operator_table.h"

TK_REGISTER_CASES(fused_mhc) {
  using namespace tk::checks;
  {
    // mhc_engram.md 3.8: n1 in {512, 1024, 2048, 8192} tokens, H in {1280, 2560, 4096}, n = 4, repeat 10, p = 1;
    // other n, repeat and p, a partial token block, T = 0.
    Table<BigFuseCase> t{"mhc_pre_big_fuse", checkBigFuse};
    for (int64_t tokens : {512, 1024, 2048, 8192})
      for (int64_t h : {1280, 2560, 4096})
        t.gpu.push_back({tokens, 4, h});
    t.gpu.push_back({1001, 4, 1024, 3, 2.0f, 2});
    t.gpu.push_back({300, 2, 512, 10, 1.0f, 3});
    t.gpu.push_back({77, 1, 256, 1, 1.0f, 4});
    t.gpu.push_back({0, 4, 1280});
    t.cpu = {{70, 4, 64}, {33, 4, 96, 3, 2.0f, 2}, {40, 2, 64, 10, 1.0f, 3}, {9, 1, 32, 1}, {0, 4, 64}};
    t.small = {{33, 4, 64}};
    t.bench = [](const RowSelection &s) {
      std::vector<BigFuseCase> rows;
      for (int64_t h : {1280, 2560, 4096})
        if (s.full || h == 4096)
          rows.push_back({8192, 4, h});
      return rows;
    };
    registerTable(t);
  }
  {
    // 3.9's cases (L, Lp, H) at n = 4 (the spec's T = 8192 for one; 1024 tokens for the rest, which keeps the
    // host's reference and copies of 10 layers' residuals to seconds); more than one launch's 10 layers, other
    // n, H that is not a multiple of 32, T = 0.
    Table<MultilayerCase> t{"mhc_multilayer_recompute", checkMultilayer};
    const int64_t specCases[][3] = {{1, 1, 2560},   {3, 2, 2560},  {3, 3, 2560},   {10, 9, 2560},
                                    {10, 10, 2560}, {10, 9, 4096}, {10, 10, 4096}, {10, 9, 7168},
                                    {10, 10, 7168}, {10, 9, 8192}, {10, 10, 8192}};
    for (const auto &s : specCases)
      t.gpu.push_back({1024, 4, s[2], s[0], s[1]});
    t.gpu.push_back({8192, 4, 2560, 10, 9, 2});
    t.gpu.push_back({1000, 4, 1024, 23, 22, 3});
    t.gpu.push_back({513, 3, 200, 4, 4, 4});
    t.gpu.push_back({0, 4, 256, 2, 1});
    t.cpu = {{40, 4, 64, 3, 2}, {33, 4, 96, 3, 3}, {20, 2, 64, 12, 12, 2}, {17, 3, 40, 2, 1, 3}, {0, 4, 64, 1, 1}};
    t.small = {{33, 4, 64, 3, 2}};
    t.bench = [](const RowSelection &s) {
      std::vector<MultilayerCase> rows;
      for (int64_t h : {2560, 4096, 7168, 8192})
        for (int64_t posts : {9, 10})
          if (s.full || (h == 7168 && posts == 9))
            rows.push_back({8192, 4, h, 10, posts});
      return rows;
    };
    registerTable(t);
  }
}
