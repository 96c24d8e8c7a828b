//===- mhc_streams_cases.cpp - mHC's n-stream operators' tests and rows ---===//
#include "checks/mhc_streams_check.h"
#include "checks/operator_table.h"

TK_REGISTER_CASES(mhc_streams) {
  using namespace tk::checks;
  using tk::kernels::mhc::StreamOp;
  using tk::kernels::mhc::streamOpName;
  // mhc_engram.md 3.1: T = n0 n1 in {1024, 2048, 4096, 8192}, n in {2, 4, 8}, H in {1280, 2560, 7168};
  // 3.5: the same T, n 4, H in {1280, 2560, 7680}; 3.7: T in {4096, 8192}, n 4, H in {1280, 2560, 7168}.
  // Each also with H off the multiples of 8 (narrow accesses, a partial chunk), n = 1 and 3, T = 0.
  struct Grid {
    StreamOp op;
    std::vector<int64_t> tokens, streams, hidden;
  };
  const std::vector<int64_t> allTokens = {1024, 2048, 4096, 8192};
  const Grid grids[] = {
      {StreamOp::ExpandFwd, allTokens, {2, 4, 8}, {1280, 2560, 7168}},
      {StreamOp::ExpandBwd, allTokens, {2, 4, 8}, {1280, 2560, 7168}},
      {StreamOp::ApplyMixFwd, allTokens, {4}, {1280, 2560, 7680}},
      {StreamOp::ApplyMixBwd, allTokens, {4}, {1280, 2560, 7680}},
      {StreamOp::PostFwd, {4096, 8192}, {4}, {1280, 2560, 7168}},
      {StreamOp::PostBwd, {4096, 8192}, {4}, {1280, 2560, 7168}},
  };
  for (const Grid &g : grids) {
    Table<MhcStreamsCase> table{streamOpName(g.op), checkMhcStreams};
    const bool accumulates = g.op == StreamOp::ApplyMixBwd;
    for (int64_t t : g.tokens)
      for (int64_t n : g.streams)
        for (int64_t h : g.hidden)
          for (bool acc : {false, true})
            if (!acc || accumulates)
              table.gpu.push_back({g.op, t, n, h, acc});
    table.gpu.push_back({g.op, 999, 3, 1000, accumulates, 2});
    table.gpu.push_back({g.op, 77, 1, 77, false, 3});
    table.gpu.push_back({g.op, 300, 8, 4096, accumulates, 4});
    table.gpu.push_back({g.op, 0, 4, 7168});
    table.gpu.push_back({g.op, 5, 2, 8, accumulates, 6}); // H below a chunk: fewer elements than threads
    table.gpu.push_back({g.op, 3, 4, 1, false, 7});
    table.cpu = {{g.op, 5, 4, 1280},
                 {g.op, 3, 4, 7168, accumulates, 2},
                 {g.op, 7, 3, 1000, false, 3},
                 {g.op, 2, 8, 256, accumulates, 4},
                 {g.op, 4, 1, 77, false, 5},
                 {g.op, 0, 4, 512},
                 {g.op, 5, 2, 8, accumulates, 6},
                 {g.op, 3, 4, 1, false, 7}};
    table.small = {{g.op, 33, 4, 2560, accumulates}, {g.op, 9, 3, 1000}};
    table.bench = [op = g.op, accumulates](const RowSelection &s) {
      std::vector<MhcStreamsCase> rows;
      for (int64_t t : {4096, 8192})
        for (int64_t h : s.full ? std::vector<int64_t>{1280, 2560, 7168} : std::vector<int64_t>{2560, 7168})
          rows.push_back({op, t, 4, h, accumulates});
      return rows;
    };
    registerTable(table);
  }
}
