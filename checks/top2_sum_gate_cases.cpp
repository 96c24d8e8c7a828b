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
  t.cpu.push_back({301, 256, 8, 0, TK_SCORING_SIGMOID, 1, 10, false, 99, 8, 8}); // Kg = G: no group step
  // moe.md 2.3's grouped configuration (G 8, Kg 4, E 256, S_in 2, K 8) x the scorings, tp_rank, padding, shared
  // slots (K / S = 4 divides 256) and fixed routing; then groups of powers of two in neither G nor E / G.
  for (tk_scoring sc : {TK_SCORING_SIGMOID, TK_SCORING_SQRTSOFTPLUS, TK_SCORING_SOFTMAX})
    for (int variant = 0; variant < 2; ++variant) {
      t.cpu.push_back({301, 256, 8, variant ? 2 : 0, sc, variant, variant ? 10 : 0, variant == 1 && sc == 0, seed,
                       8, 4});
      ++seed;
    }
  t.cpu.push_back({301, 72, 6, 0, TK_SCORING_SIGMOID, 0, 0, false, 200, 3, 2});        // 3 groups of 24
  t.cpu.push_back({301, 144, 6, 2, TK_SCORING_SOFTMAX, 1, 10, false, 201, 12, 5});     // 12 groups of 12
  t.cpu.push_back({301, 96, 6, 0, TK_SCORING_SQRTSOFTPLUS, 0, 10, false, 202, 16, 3}); // 16 groups of 6
  // Physical ids across int32's range (EP/TP ownership's quotients and local numbers at their extremes).
  t.cpu.push_back({301, 72, 6, 1, TK_SCORING_SIGMOID, 1, 10, false, 203, 0, 0, true});
  t.cpu.push_back({301, 144, 6, 2, TK_SCORING_SOFTMAX, 0, 0, true, 204, 0, 0, true});
  // Replica columns that differ, counts in [1, X + 1], ep_rank near INT32_MAX: the hash in 32 bits (up to 65536
  // replicas, the last at its bound) and in 64 (65537).
  t.cpu.push_back({301, 72, 6, 1, TK_SCORING_SIGMOID, 1, 10, false, 205, 0, 0, false, 33});
  t.cpu.push_back({301, 256, 8, 2, TK_SCORING_SOFTMAX, 0, 0, false, 206, 8, 4, false, 65536});
  t.cpu.push_back({301, 36, 6, 2, TK_SCORING_SQRTSOFTPLUS, 1, 0, false, 207, 0, 0, false, 65537});
  t.gpu = t.cpu;
  for (Top2SumGateCase &g : t.gpu)
    g.tokens = 4001;
  t.small = {{64, 72, 6, 1, TK_SCORING_SIGMOID, 1, 4, false}, {32, 144, 6, 2, TK_SCORING_SOFTMAX, 0, 0, true}};
  t.bench = [](const RowSelection &s) {
    // The reference's benchmark: N = 32 routed + 4 padded rows, tp_rank 1, shared-as-routed where valid.
    std::vector<Top2SumGateCase> out;
    for (int64_t e : {72, 144})
      for (tk_scoring sc : {TK_SCORING_SIGMOID, TK_SCORING_SQRTSOFTPLUS, TK_SCORING_SOFTMAX})
        out.push_back({32, e, 6, e == 72 ? 1 : 2, sc, 1, 4, false});
    for (tk_scoring sc : {TK_SCORING_SIGMOID, TK_SCORING_SQRTSOFTPLUS, TK_SCORING_SOFTMAX})
      out.push_back({32, 256, 8, 2, sc, 1, 4, false, 1, 8, 4});
    // --full adds a prefill's batch (16384 tokens, the size of the torch.compile figure), where tokens
    // outnumber the SMs' slots and CTAs of several tokens can pay.
    if (s.full) {
      out.push_back({16384, 72, 6, 1, TK_SCORING_SIGMOID, 1, 0, false});
      out.push_back({16384, 144, 6, 2, TK_SCORING_SIGMOID, 1, 0, false});
      out.push_back({16384, 256, 8, 2, TK_SCORING_SIGMOID, 1, 0, false, 1, 8, 4});
    }
    return out;
  };
  registerTable(t);
}
