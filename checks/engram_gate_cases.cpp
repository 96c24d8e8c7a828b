//===- engram_gate_cases.cpp - the Engram gate's tests and rows -----------===//
#include "checks/engram_gate_check.h"
#include "checks/operator_table.h"

TK_REGISTER_CASES(engram_gate) {
  using namespace tk::checks;
  // mhc_engram.md 4.3: T in {4001, 8001} (and 0), n 4, H in {2048, 2560, 3072, 4096, 6144, 7168}; strided k and v,
  // and an H off the reference's multiples of 256, too.
  Table<GateForwardCase> fwd{"engram_gate_fwd", checkGateForward};
  for (int64_t t : {4001, 8001})
    for (int64_t h : {2048, 2560, 3072, 4096, 6144, 7168})
      fwd.gpu.push_back({t, 4, h});
  fwd.gpu.push_back({0, 4, 7168});
  fwd.gpu.push_back({4001, 4, 7168, true, true, 2});
  fwd.gpu.push_back({999, 3, 1000, true, true, 3});
  fwd.cpu = {{5, 4, 2048}, {3, 4, 7168, true, true, 2}, {7, 3, 1000, true, true, 3}, {0, 4, 4096}, {2, 1, 64}};
  fwd.small = {{33, 4, 2048}, {9, 2, 1000, true, true}};
  fwd.bench = [](const RowSelection &s) {
    std::vector<GateForwardCase> rows;
    for (int64_t t : {4001, 8001})
      for (int64_t h :
           s.full ? std::vector<int64_t>{2048, 2560, 3072, 4096, 6144, 7168} : std::vector<int64_t>{4096, 7168})
        for (bool save : {true, false})
          rows.push_back({t, 4, h, save});
    return rows;
  };
  registerTable(fwd);
  // 4.4: the forward's grid with P = 132 (the H200's SM count); strided k and v, n 3 with H 1000, blocks without
  // tokens (P > T), T = 0 (only zero partial rows), one block.
  Table<GateBackwardCase> bwd{"engram_gate_bwd", checkGateBackward};
  for (int64_t t : {4001, 8001})
    for (int64_t h : {2048, 2560, 3072, 4096, 6144, 7168})
      bwd.gpu.push_back({t, 4, h});
  bwd.gpu.push_back({4001, 4, 7168, 132, true, 2});
  bwd.gpu.push_back({999, 3, 1000, 7, true, 3});
  bwd.gpu.push_back({5, 4, 4096, 132});
  bwd.gpu.push_back({0, 4, 7168, 132});
  bwd.gpu.push_back({300, 4, 2048, 1});
  bwd.cpu = {{5, 4, 2048, 3}, {3, 4, 7168, 2, true, 2}, {7, 3, 1000, 4, true, 3}, {0, 4, 512, 3}, {2, 1, 64, 5}};
  bwd.small = {{33, 4, 2048, 8}, {9, 2, 1000, 4, true}, {0, 4, 512, 3}};
  bwd.bench = [](const RowSelection &s) {
    std::vector<GateBackwardCase> rows;
    for (int64_t t : {4001, 8001})
      for (int64_t h :
           s.full ? std::vector<int64_t>{2048, 2560, 3072, 4096, 6144, 7168} : std::vector<int64_t>{4096, 7168})
        rows.push_back({t, 4, h});
    return rows;
  };
  registerTable(bwd);
  // 4.5: P = the reference's SM count (132 on the H200), n 4, H from the list; other P, n, H and P = 0 too.
  Table<GradWReduceCase> reduce{"engram_grad_w_reduce", checkGradWReduce};
  for (int64_t h : {2048, 2560, 3072, 4096, 6144, 7168})
    reduce.gpu.push_back({132, 4, h});
  reduce.gpu.push_back({5, 3, 1000});
  reduce.gpu.push_back({1, 4, 7168});
  reduce.gpu.push_back({33, 2, 77}); // n H not a multiple of 4: the scalar kernel
  reduce.gpu.push_back({0, 4, 4096});
  reduce.cpu = {{132, 4, 2048}, {5, 3, 1000}, {1, 4, 256}, {0, 4, 512}, {33, 2, 77}};
  reduce.small = {{132, 4, 2048}, {5, 3, 1000}};
  reduce.bench = [](const RowSelection &s) {
    std::vector<GradWReduceCase> rows;
    for (int64_t h :
         s.full ? std::vector<int64_t>{2048, 2560, 3072, 4096, 6144, 7168} : std::vector<int64_t>{4096, 7168})
      rows.push_back({132, 4, h});
    return rows;
  };
  registerTable(reduce);
}
