//===- transpose_cases.cpp - transpose and batched_transpose: tests and rows ===//
#include "checks/operator_table.h"
#include "checks/transpose_check.h"

namespace tk::checks {
namespace {

/// CPU: small tiles of every element size (256 x 128: the 128 x 128 default
/// tile of 1- and 2-byte elements), contiguous rows and a row stride of 2C.
std::vector<TransposeCase> cpuGrid(bool batched) {
  std::vector<TransposeCase> cases;
  for (int64_t b : batched ? std::vector<int64_t>{1, 3} : std::vector<int64_t>{1})
    for (int64_t r : {64, 192, 256})
      for (int64_t c : {64, 128})
        for (tk_dtype t : {TK_F8_E4M3, TK_BF16, TK_F32})
          for (int64_t stride : {0l, 2 * c})
            cases.push_back({b, r, c, t, stride, batched});
  return cases;
}

/// GPU (quant.md 4.19): transpose over R in {4032, 8064} x the seven C with a
/// row stride of 2C; batched_transpose with B = 8 on the smaller R (the
/// spec's B = 32 and R = 8064 are left out to keep the host reference's time).
std::vector<TransposeCase> gpuGrid(bool batched) {
  std::vector<TransposeCase> cases;
  for (int64_t r : {4032, 8064})
    for (int64_t c : {576, 2048, 2560, 3072, 4096, 6144, 7168}) {
      if (!batched)
        for (tk_dtype t : {TK_F8_E4M3, TK_BF16})
          cases.push_back({1, r, c, t, 2 * c, false});
      if (batched && r == 4032)
        for (tk_dtype t : {TK_F8_E4M3, TK_BF16, TK_F32})
          cases.push_back({8, r, c, t, 0, true});
    }
  return cases;
}

} // namespace
} // namespace tk::checks

// Rows: the spec's benchmark shapes (quant.md 4.19), bytes = x + out.
TK_REGISTER_CASES(transpose) {
  Table<TransposeCase> batched{"batched_transpose", checkTranspose};
  batched.cpu = cpuGrid(true);
  batched.gpu = gpuGrid(true);
  batched.bench = [](const RowSelection &s) {
    std::vector<TransposeCase> rows = {{8, 4096, 7168, TK_BF16}, {8, 4096, 7168, TK_F8_E4M3}, {8, 4096, 7168, TK_F32}};
    if (s.headline)
      rows.resize(2);
    return rows;
  };
  batched.small = {{2, 256, 512, TK_BF16}, {3, 192, 128, TK_F32}};
  registerTable(batched);
  Table<TransposeCase> plain{"transpose", checkTranspose};
  plain.cpu = cpuGrid(false);
  plain.gpu = gpuGrid(false);
  plain.bench = [](const RowSelection &s) {
    return s.headline ? std::vector<TransposeCase>{} : std::vector<TransposeCase>{{1, 8064, 7168, TK_BF16, 2 * 7168, false}};
  };
  plain.small = {{1, 256, 512, TK_F8_E4M3, 1024, false}};
  registerTable(plain);
}
