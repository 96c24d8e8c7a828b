//===- top2_sum_gate_cases.cpp - top2_sum_gate's tests and rows -----------===//
#include "checks/operator_table.h"
#include "checks/top2_sum_gate_check.h"

TK_REGISTER_CASES(top2_sum_gate) {
  using namespace tk::checks;
  Table<Top2SumGateCase> t{"top2_sum_gate", checkTop2SumGate};
  // moe.md 2.3's ungrouped configurations (E, S_in) with K = 6: x the three scorings, tp_rank, padded rows,
  // shared-as-routed where K % S == 0 and E % (K / S) == 0, fixed routing.
  const std::vector<std::pair<int64_t, int64_t>> configs = {{72, 1}, {32, 2},  {64, 2},  {96, 2}, {16, 2},
                                                            {36, 2}, {108, 2}, {128, 2}, {144, 2}};
  uint64_t seed = 1;
  for (auto [e, sIn] : configs)
    for (tk_scoring sc : {TK_SCORING_SIGMOID, TK_SCORING_SQRTSOFTPLUS, TK_SCORING_SOFTMAX}) {
      const bool sharedOk = 6 % sIn == 0 && e % (6 / sIn) == 0;
      t.cpu.push_back(
          {301, e, 6, sharedOk ? sIn : 0, sc, (int64_t)(seed % 2), seed % 3 == 0 ? 10 : 0, seed % 4 == 1, seed});
      ++seed;
    }
  t.cpu.push_back({301, 256, 8, 0, TK_SCORING_SIGMOID, 1, 10, false, 99}); // Kg = G = 8 behaves as ungrouped
  t.gpu = t.cpu;
  for (Top2SumGateCase &g : t.gpu)
    g.tokens = 4001;
  t.small = {{64, 72, 6, 1, TK_SCORING_SIGMOID, 1, 4, false}, {32, 144, 6, 2, TK_SCORING_SOFTMAX, 0, 0, true}};
  t.bench = [](const RowSelection &) {
    // The reference's benchmark: N = 32 routed + 4 padded rows, tp_rank 1, shared-as-routed where valid.
    std::vector<Top2SumGateCase> out;
    for (int64_t e : {72, 144})
      for (tk_scoring sc : {TK_SCORING_SIGMOID, TK_SCORING_SQRTSOFTPLUS, TK_SCORING_SOFTMAX})
        out.push_back({32, e, 6, e == 72 ? 1 : 2, sc, 1, 4, false});
    return out;
  };
  registerTable(t);
}
