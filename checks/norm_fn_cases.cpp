//===- norm_fn_cases.cpp - mhc_pre_norm_fn's tests and rows ---------------===//
#include "checks/norm_fn_check.h"
#include "checks/operator_table.h"

TK_REGISTER_CASES(norm_fn) {
  using namespace tk::checks;
  // mhc_engram.md 3.2: T in {4096, 8192}, H in {1280, 2560, 7168}, n = 4, the norm weight absent and present
  // (the backward also accumulating into the residual-gradient buffer); T = 13 and 48 (partial token blocks, as
  // the reference's split-K test), H = 4096, T = 0.
  for (bool backward : {false, true}) {
    Table<NormFnCase> t{backward ? "mhc_pre_norm_fn_bwd" : "mhc_pre_norm_fn_fwd", checkNormFn};
    for (int64_t tokens : {4096, 8192})
      for (int64_t h : {1280, 2560, 7168})
        for (bool weighted : {false, true})
          t.gpu.push_back({backward, tokens, 4, h, weighted, backward && !weighted});
    t.gpu.push_back({backward, 13, 4, 4096, false, backward, 2});
    t.gpu.push_back({backward, 48, 4, 2560, true, false, 3});
    t.gpu.push_back({backward, 0, 4, 1280, true});
    // The spec's H all give the forward 8 splits; these take one kernel (G = 64) and 2 splits (G = 384), each with
    // a partial block of 128 tokens.
    t.gpu.push_back({backward, 40, 4, 16, false, backward});
    t.gpu.push_back({backward, 1000, 4, 96, true});
    // In 64-column chunks, G = 64 runs the forward in one kernel, 128 and 384 in 2 splits, 256 in 4, 512 in the
    // default's 8 (each a partial block of its 128 tokens).
    t.cpu = {{backward, 40, 4, 64, false, backward}, {backward, 40, 4, 16, false},  {backward, 13, 4, 96, true},
             {backward, 100, 2, 64, false},          {backward, 40, 4, 128, false}, {backward, 0, 4, 64, true}};
    t.small = {{backward, 33, 4, 64, true, backward}};
    t.bench = [backward](const RowSelection &s) {
      std::vector<NormFnCase> rows;
      for (int64_t h : {1280, 2560, 7168})
        if (s.full || h == 7168)
          rows.push_back({backward, 8192, 4, h, false, backward});
      return rows;
    };
    registerTable(t);
  }
}
