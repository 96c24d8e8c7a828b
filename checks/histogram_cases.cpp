//===- histogram_cases.cpp - group_count's and aux_fi's tests and rows ----===//
#include "checks/histogram_check.h"
#include "checks/operator_table.h"

TK_REGISTER_CASES(histogram) {
  using namespace tk::checks;
  auto cpuGrid = [](std::vector<HistogramCase> &out, bool aux) {
    for (int64_t k : {1, 2, 6, 9})
      for (auto [e, ranks] : std::vector<std::pair<int64_t, int64_t>>{{72, 8}, {256, 8}, {256, 64}, {288, 1}})
        for (int64_t ka : aux ? std::vector<int64_t>{1, k} : std::vector<int64_t>{0})
          out.push_back({1000, k, e, ranks, ka, false, (uint64_t)(k * 7 + e)});
    out.push_back({1000, 9, 256, 8, aux ? 9 : 0, true});
    out.push_back({0, 6, 72, 8, aux ? 6 : 0}); // no token: zeros
    out.push_back({500, 8, 4096, 1, aux ? 8 : 0}); // the most groups, 4096 bins
  };
  // GPU: the spec's MoE grid (num_groups = the local experts), ids outside the groups, a large count.
  auto gpuGrid = [](std::vector<HistogramCase> &out, bool aux) {
    for (const MoeGridPoint &g : moeGrid())
      for (int64_t ka : aux ? std::vector<int64_t>{1, g.topk} : std::vector<int64_t>{0})
        out.push_back({g.tokens, g.topk, g.experts, g.ranks, ka, false, (uint64_t)g.tokens});
    out.push_back({40001, 9, 256, 8, aux ? 9 : 0, true});
    out.push_back({400001, 8, 384, 1, aux ? 8 : 0});
  };
  auto rows = [](bool aux) {
    return [aux](const RowSelection &s) {
      std::vector<HistogramCase> out;
      for (const MoeGridPoint &g : moeGrid())
        if (g.ranks == 64 || s.full)
          out.push_back({g.tokens, g.topk, g.experts, g.ranks, aux ? g.topk : 0});
      if (s.headline)
        out.resize(1);
      return out;
    };
  };
  Table<HistogramCase> t{"group_count", checkHistogram};
  cpuGrid(t.cpu, false);
  gpuGrid(t.gpu, false);
  t.small = {{256, 8, 256, 8}, {100, 9, 72, 8, 0, true}};
  t.bench = rows(false);
  registerTable(t);
  Table<HistogramCase> a{"aux_fi", checkHistogram};
  cpuGrid(a.cpu, true);
  gpuGrid(a.gpu, true);
  a.small = {{256, 8, 256, 8, 8}, {100, 9, 72, 8, 1, true}};
  a.bench = rows(true);
  registerTable(a);
}
