// topkColumns' two forms (dsl/Select.h) in a kernel of 128 threads over 256
// columns (each round's reduction crosses warps), and their check against a
// host sort on the order's edge cases: ties, +0 against -0, NaN, infinities
// and padding columns that hold the largest values. On the CPU path
// (tests/unit/topk_rounds_test.cpp) or a GPU (topk_rounds_gpu_test.cpp).
#pragma once

#include "checks/gpu_session.h"
#include "tests/kernels/run_test_kernel.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/dsl/Select.h"
#include "tk/runtime/Context.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace tk::test_kernels {

constexpr int64_t kTopkWidth = 256, kTopkValid = 200, kTopkK = 8;

template <dsl::TopkRounds Rounds> dsl::BuiltKernel buildTopkRounds(mlir::MLIRContext &ctx) {
  using namespace tk::dsl;
  KernelBuilder k(ctx, Rounds == TopkRounds::Packed ? "topk_packed" : "topk_key_then_position", 128);
  Dim n = k.dynamic("n");
  Tensor x = k.input("x", {n, kTopkWidth}, DType::F32);
  Tensor ids = k.output("ids", {n, kTopkK}, DType::I32);
  k.grid({n}, [&](const std::vector<Index> &b) {
    Tile keys = rankKeys(k.load(x, {b[0], k.index(0)}, {1, kTopkWidth}));
    std::vector<Tile> best = topkColumns(keys, kTopkK, kTopkValid, -1, Rounds);
    for (int64_t s = 0; s < kTopkK; ++s)
      k.store(ids, {b[0], k.index(s)}, best[s]);
  });
  return k.finish();
}

/// The order of Select.h: greater value first, +0 == -0, NaN below all, ties to the lower column.
inline std::vector<int32_t> hostTopk(const float *row) {
  std::vector<int32_t> order(kTopkValid);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    bool na = std::isnan(row[a]), nb = std::isnan(row[b]);
    if (na != nb)
      return nb; // a number before a NaN
    return !na && row[a] > row[b];
  });
  order.resize(kTopkK);
  return order;
}

/// Rows cycling through six kinds of edge case; padding columns +inf.
inline std::vector<float> topkEdgeRows(int64_t rows) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(rows * kTopkWidth);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-3, 3);
  for (int64_t r = 0; r < rows; ++r) {
    float *row = x.data() + r * kTopkWidth;
    for (int64_t c = 0; c < kTopkWidth; ++c) {
      switch (r % 6) {
      case 0:
        row[c] = 1.5f;
        break; // all tied
      case 1:
        row[c] = c % 3 == 0 ? -0.0f : (c % 3 == 1 ? 0.0f : -1.0f);
        break; // +0 and -0 tie
      case 2:
        row[c] = c % 7 == 0 ? (float)(c % 5) : nan;
        break; // mostly NaN
      case 3:
        row[c] = nan;
        break; // only NaN
      case 4:
        row[c] = c % 2 ? -inf : (float)small(rng);
        break; // -inf, many ties
      default:
        row[c] = (float)small(rng) * 0.25f;
        break;
      }
      if (c >= kTopkValid)
        row[c] = inf; // padding: never chosen, whatever it holds
    }
  }
  return x;
}

/// Runs buildTopkRounds<Rounds> over `rows` rows where `where` puts its
/// tensors: the number of rows whose ids differ from the host's, or -1 (and
/// `error`) when the call fails.
template <dsl::TopkRounds Rounds>
int64_t checkTopkRounds(tk_context ctx, checks::Placement where, int64_t rows, std::string &error) {
  std::vector<float> x = topkEdgeRows(rows);
  std::vector<int32_t> ids(rows * kTopkK, -7);
  void *dx = where.put(x.data(), x.size() * 4), *di = where.poisoned(ids.data(), ids.size() * 4, 0xEE);
  tk_tensor tx = where.tensor(dx, TK_F32, {rows, kTopkWidth}), ti = where.tensor(di, TK_I32, {rows, kTopkK});
  if (!runTestKernel(ctx, runtime::factoryOf(buildTopkRounds<Rounds>), {&tx, &ti}, error))
    return -1;
  where.get(ids.data(), di, ids.size() * 4);
  int64_t wrong = 0;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int32_t> want = hostTopk(x.data() + r * kTopkWidth);
    if (!std::equal(want.begin(), want.end(), ids.begin() + r * kTopkK)) {
      if (error.empty())
        error = "row " + std::to_string(r) + " differs from the host's order";
      ++wrong;
    }
  }
  return wrong;
}

} // namespace tk::test_kernels
