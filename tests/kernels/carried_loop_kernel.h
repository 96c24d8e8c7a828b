// A loop that carries tiles (KernelBuilder::loop, scf.for with fragment
// iter_args; or KernelBuilder::pipeline, tile.pipeline with iter_args, its
// chunks through shared memory) and its check on the CPU path or a GPU
// (tests/unit/carried_loop_test.cpp, tests/kernels/carried_loop_gpu_test.cpp).
#pragma once

#include "checks/gpu_session.h"
#include "tests/kernels/run_test_kernel.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"

#include <string>
#include <vector>

namespace tk::test_kernels {

constexpr int64_t kCarriedRows = 4, kCarriedChunk = 128;

/// stages 0: KernelBuilder::loop, loading each chunk; 1 to 8: a pipeline
/// of that many stages, copying each chunk into shared memory.
struct CarriedSumsConfig {
  int64_t stages = 0;
  std::string key() const { return "stages=" + std::to_string(stages); }
};

/// Per 4 rows of x [rows, cols] (cols a multiple of 128, 0 included), two
/// (4, 128) tiles carried over the column chunks after the first: a (the
/// first chunk, then a += x) and b (ones, then b += a / 2 with the a of
/// before the update: the body reads a carried tile after computing its next
/// value). Row sums of a and b go to sa and sb [rows, 1]. 128 columns run
/// the loop zero times.
inline dsl::BuiltKernel buildCarriedSums(mlir::MLIRContext &ctx, const CarriedSumsConfig &config) {
  using namespace tk::dsl;
  KernelBuilder k(ctx, config.stages ? "carried_pipeline_sums" : "carried_sums", 64);
  Dim rows = k.dynamic("rows", kCarriedRows), cols = k.dynamic("cols", kCarriedChunk);
  Tensor x = k.input("x", {rows, cols}, DType::F32);
  Tensor sa = k.output("sa", {rows, 1}, DType::F32), sb = k.output("sb", {rows, 1}, DType::F32);
  k.grid({ceil_div(rows, kCarriedRows)}, [&](const std::vector<Index> &blk) {
    Index row = blk[0] * kCarriedRows;
    std::vector<int64_t> shape = {kCarriedRows, kCarriedChunk};
    // The first chunk starts a; the loop takes the others (none for 128 columns).
    Tile first = k.load(x, {row, k.index(0)}, shape);
    std::vector<Tile> init = {first, k.full(shape, 1.0)};
    std::vector<Tile> out;
    if (!config.stages) {
      out = k.loop(k.index(1), k.index(cols) / kCarriedChunk, init,
                   [&](const Index &i, const std::vector<Tile> &c) -> std::vector<Tile> {
                     Tile next = c[0] + k.load(x, {row, i * kCarriedChunk}, shape);
                     return {next, c[1] + c[0] * 0.5};
                   });
    } else {
      Shared chunk = k.shared(shape, DType::F32);
      out = k.pipeline(k.index(1), k.index(cols) / kCarriedChunk, config.stages, init,
                       [&](const Index &i, const std::vector<Tile> &c) -> std::vector<Tile> {
                         k.copy(x, {row, i * kCarriedChunk}, chunk);
                         Tile next = c[0] + k.load(chunk, {k.index(0), k.index(0)}, shape);
                         return {next, c[1] + c[0] * 0.5};
                       });
    }
    k.store(sa, {row, k.index(0)}, reduce_sum(out[0], 1));
    k.store(sb, {row, k.index(0)}, reduce_sum(out[1], 1));
  });
  return k.finish();
}

/// Runs buildCarriedSums(config) on x [m, n] (small integers, so every sum is exact
/// in any order) where `where` puts it; the number of wrong sums, or -1 (and
/// `error`) when the call fails.
inline int64_t checkCarriedSums(tk_context ctx, checks::Placement where, int64_t m, int64_t n, std::string &error,
                                const CarriedSumsConfig &config = {}) {
  std::vector<float> x(m * n), sa(m, -7.0f), sb(m, -7.0f);
  for (int64_t i = 0; i < m * n; ++i)
    x[i] = float((i * 7 + i / n) % 5) - 2.0f;
  void *dx = where.put(x.data(), x.size() * 4);
  void *da = where.poisoned(sa.data(), m * 4, 0xFF), *db = where.poisoned(sb.data(), m * 4, 0xFF);
  tk_tensor tx = where.tensor(dx, TK_F32, {m, n}), ta = where.tensor(da, TK_F32, {m, 1}),
            tb = where.tensor(db, TK_F32, {m, 1});
  if (!runTestKernel(ctx, runtime::factoryOf(buildCarriedSums, config), {&tx, &ta, &tb}, error))
    return -1;
  where.get(sa.data(), da, m * 4);
  where.get(sb.data(), db, m * 4);
  int64_t wrong = 0;
  for (int64_t r = 0; r < m; ++r) {
    double wantA = 0, wantB = 0;
    for (int64_t c = 0; c < kCarriedChunk; ++c) {
      double a = n ? x[r * n + c] : 0.0, b = 1;
      for (int64_t i = 1; i < n / kCarriedChunk; ++i) {
        b += a * 0.5;
        a += x[r * n + i * kCarriedChunk + c];
      }
      wantA += a, wantB += b;
    }
    if (sa[r] != wantA || sb[r] != wantB) {
      if (!wrong)
        error = "row " + std::to_string(r) + ": " + std::to_string(sa[r]) + ", " + std::to_string(sb[r]) +
                " instead of " + std::to_string(wantA) + ", " + std::to_string(wantB);
      ++wrong;
    }
  }
  return wrong;
}

} // namespace tk::test_kernels
