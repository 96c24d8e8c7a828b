//===- sinkhorn_cases.cpp - sinkhorn_normalize's tests and rows -----------===//
#include "checks/operator_table.h"
#include "checks/sinkhorn_check.h"

TK_REGISTER_CASES(sinkhorn) {
  using namespace tk::checks;
  // mhc_engram.md 3.4: [n0, n1, 4, 4] with n0 in {1, 2}, n1 in {1, 1024, 4096} (M = 1 is a block of fewer
  // matrices than a CTA takes), repeat 10, eps 1e-6; other n and repeat, and M = 0, too.
  for (bool backward : {false, true}) {
    Table<SinkhornCase> t{backward ? "sinkhorn_normalize_bwd" : "sinkhorn_normalize_fwd", checkSinkhorn};
    for (int64_t m : {1, 2, 1024, 2048, 4096, 8192})
      t.gpu.push_back({m, 4, 10, backward});
    t.gpu.push_back({999, 8, 3, backward, 2});
    t.gpu.push_back({77, 3, 1, backward, 3});
    t.gpu.push_back({100, 16, 5, backward, 4});
    t.gpu.push_back({0, 4, 10, backward});
    t.cpu = {{1, 4, 10, backward},   {1024, 4, 10, backward}, {99, 8, 3, backward, 2},
             {7, 3, 1, backward, 3}, {5, 16, 5, backward, 4}, {0, 4, 10, backward}};
    t.small = {{33, 4, 10, backward}, {9, 3, 2, backward}};
    t.bench = [backward](const RowSelection &) {
      return std::vector<SinkhornCase>{{8192, 4, 10, backward}, {65536, 4, 10, backward}};
    };
    registerTable(t);
  }
}
