//===- mix_gates_cases.cpp - split_mixes' and head_compute_mix's tests and rows ===//
#include "checks/mix_gates_check.h"
#include "checks/operator_table.h"

TK_REGISTER_CASES(mix_gates) {
  using namespace tk::checks;
  using tk::kernels::mhc::MixGateKind;
  // mhc_engram.md 3.3 and 3.6: [n0, n1] tokens with n0 in {1, 2}, n1 in {1024, 4096}, n = 4; other n, partial
  // blocks, T = 0 and (head) the strided column slice mhc_head passes, too.
  for (MixGateKind kind : {MixGateKind::Split, MixGateKind::Head})
    for (bool backward : {false, true}) {
      Table<MixGateCase> t{tk::kernels::mhc::mixGateName(kind, backward), checkMixGate};
      const int64_t wide = 24; // mhc_head's input: the first n = 4 columns of the 2n + n^2 logits
      for (int64_t tokens : {1024, 2048, 4096, 8192})
        t.gpu.push_back({kind, backward, tokens});
      t.gpu.push_back({kind, backward, 1});
      t.gpu.push_back({kind, backward, 777, 1, 0, 2});
      t.gpu.push_back({kind, backward, 1000, 3, 0, 3});
      t.gpu.push_back({kind, backward, 300, 8, 0, 4});
      t.gpu.push_back({kind, backward, 0});
      t.cpu = {{kind, backward, 1024},         {kind, backward, 1},           {kind, backward, 77, 1, 0, 2},
               {kind, backward, 130, 3, 0, 3}, {kind, backward, 65, 8, 0, 4}, {kind, backward, 0}};
      // Strided logits' rows: head's column slice of the 24-wide logits, split's rows padded to 32.
      const int64_t stride = kind == MixGateKind::Head ? wide : 32;
      t.gpu.push_back({kind, backward, 4096, 4, stride, 5});
      t.cpu.push_back({kind, backward, 300, 4, stride, 5});
      t.small = {{kind, backward, 33}, {kind, backward, 9, 3}};
      t.bench = [kind, backward](const RowSelection &) {
        return std::vector<MixGateCase>{{kind, backward, 8192}, {kind, backward, 65536}};
      };
      registerTable(t);
    }
}
