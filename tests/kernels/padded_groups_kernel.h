// Reduced fragments over padded dimensions (n x n matrices with n not a
// power of two, laid out over more lanes than rows or columns), combined
// with values loaded from memory, an iota along the reduced dimension and a
// reduction of a reduction, under an expensive elementwise op that the GPU
// lowering splits over a group's lanes (SplitReplicatedWork.cpp): every lane
// of a group, the padding ones too, must hold the group's values
// (docs/reliability.md). Checked on the CPU path or a GPU
// (tests/unit/padded_groups_test.cpp, tests/kernels/padded_groups_gpu_test.cpp).
#pragma once

#include "checks/gpu_session.h"
#include "tests/kernels/run_test_kernel.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"

#include <string>
#include <vector>

namespace tk::test_kernels {

struct PaddedGroupsConfig {
  int64_t n = 3, rows = 8, threads = 32; ///< n x n matrices, `rows` of them a CTA
  std::string key() const {
    return "n=" + std::to_string(n) + ",rows=" + std::to_string(rows) + ",threads=" + std::to_string(threads);
  }
};

/// y[m, r, c] = x[m, r, c] + ((s / d[m, c]) / e[m]) / (i + 3) with s = sum over r of x[m, ., c] and i the
/// coordinate along r of the [rows, 1, n] column sums (0): d and e loaded as that reduced tile and as a
/// [rows, 1, 1] one expanded along c.
inline dsl::BuiltKernel buildPaddedGroups(mlir::MLIRContext &ctx, const PaddedGroupsConfig &c) {
  using namespace tk::dsl;
  const int64_t n = c.n, rows = c.rows;
  KernelBuilder k(ctx, "padded_groups", c.threads);
  Dim m = k.dynamic("matrices");
  Tensor x = k.input("x", {m, n, n}, DType::F32), d = k.input("d", {m, 1, n}, DType::F32),
         e = k.input("e", {m, 1, 1}, DType::F32);
  Tensor y = k.output("y", {m, n, n}, DType::F32);
  k.grid({ceil_div(m, rows)}, [&](const std::vector<Index> &b) {
    Index at = b[0] * rows, zero = k.index(0);
    Tile t = k.load(x, {at, zero, zero}, {rows, n, n});
    Tile sums = reduce_sum(t, 1);
    Tile dv = k.load(d, {at, zero, zero}, {rows, 1, n});
    Tile ev = expand(k.load(e, {at, zero, zero}, {rows, 1, 1}), 2, n);
    Tile i = k.iota({rows, 1, n}, 1);
    Tile q = map({sums, dv, ev, i}, DType::F32, [](const std::vector<Scalar> &v) {
      return v[0] / v[1] / v[2] / (v[3].signedToF32() + v[0].constantF32(3.0));
    });
    k.store(y, {at, zero, zero}, t + expand(q, 1, n));
  });
  return k.finish();
}

/// Runs buildPaddedGroups on `matrices` matrices where `where` puts them; the number of elements of y that
/// differ from the host's fp32 arithmetic in the same order (the sums are of small integers, exact in any
/// order), or -1 (and `error`) when the call fails.
inline int64_t checkPaddedGroups(tk_context ctx, checks::Placement where, const PaddedGroupsConfig &c, int64_t matrices,
                                 std::string &error) {
  const int64_t n = c.n, mm = matrices;
  std::vector<float> x(mm * n * n), d(mm * n), e(mm), y(mm * n * n);
  for (int64_t i = 0; i < mm * n * n; ++i)
    x[i] = float(int64_t(i * 7919 % 17) - 8);
  for (int64_t i = 0; i < mm * n; ++i)
    d[i] = float((i * 31 % 7 + 1) * (i % 2 ? -1 : 1));
  for (int64_t i = 0; i < mm; ++i)
    e[i] = float(i % 5 + 1);
  void *dx = where.put(x.data(), x.size() * 4), *dd = where.put(d.data(), d.size() * 4),
       *de = where.put(e.data(), e.size() * 4);
  void *dy = where.poisoned(y.data(), y.size() * 4, 0xFF);
  tk_tensor tx = where.tensor(dx, TK_F32, {mm, n, n}), td = where.tensor(dd, TK_F32, {mm, 1, n}),
            te = where.tensor(de, TK_F32, {mm, 1, 1}), ty = where.tensor(dy, TK_F32, {mm, n, n});
  if (!runTestKernel(ctx, runtime::factoryOf(buildPaddedGroups, c), {&tx, &td, &te, &ty}, error))
    return -1;
  where.get(y.data(), dy, y.size() * 4);
  int64_t wrong = 0;
  for (int64_t m = 0; m < mm; ++m)
    for (int64_t col = 0; col < n; ++col) {
      float sum = 0;
      for (int64_t r = 0; r < n; ++r)
        sum += x[(m * n + r) * n + col];
      const float q = sum / d[m * n + col] / e[m] / 3.0f;
      for (int64_t r = 0; r < n; ++r) {
        const int64_t at = (m * n + r) * n + col;
        const float want = x[at] + q;
        if (y[at] != want && !wrong++)
          error = "y[" + std::to_string(m) + ", " + std::to_string(r) + ", " + std::to_string(col) +
                  "] = " + std::to_string(y[at]) + " instead of " + std::to_string(want);
      }
    }
  return wrong;
}

/// The schedules both tests run: n = 3, 5, 6 and 7 (padded) and 4 (not), one to several warps.
inline std::vector<PaddedGroupsConfig> paddedGroupsConfigs() {
  return {{3, 8, 32}, {3, 32, 128}, {5, 4, 32}, {6, 8, 64}, {7, 2, 32}, {7, 16, 256}, {4, 8, 32}};
}

} // namespace tk::test_kernels
