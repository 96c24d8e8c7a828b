// topkColumns' two forms (dsl/Select.h) on the CPU path against a host
// sort, on the order's edge cases: ties, +0 against -0, NaN, infinities and
// padding columns that hold the largest values; and both compile for every
// target (the packed form's i64 reductions cross lanes as 32-bit halves).
#include "tk/dsl.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

constexpr int64_t kWidth = 256, kValid = 200, kTopk = 8;

template <tk::dsl::TopkRounds Rounds> tk::BuiltKernel buildTopk(mlir::MLIRContext &ctx) {
  // 128 threads over 256 columns: each round's reduction crosses warps.
  tk::KernelBuilder k(ctx, Rounds == tk::dsl::TopkRounds::Packed ? "topk_packed" : "topk_key_then_position", 128);
  tk::Dim n = k.dynamic("n");
  tk::Tensor x = k.input("x", {n, kWidth}, tk::DType::F32);
  tk::Tensor ids = k.output("ids", {n, kTopk}, tk::DType::I32);
  k.grid({n}, [&](const std::vector<tk::Index> &b) {
    tk::Tile keys = tk::dsl::rankKeys(k.load(x, {b[0], k.index(0)}, {1, kWidth}));
    std::vector<tk::Tile> best = tk::dsl::topkColumns(keys, kTopk, kValid, -1, Rounds);
    for (int64_t s = 0; s < kTopk; ++s)
      k.store(ids, {b[0], k.index(s)}, best[s]);
  });
  return k.finish();
}

/// The order of Select.h: greater value first, +0 == -0, NaN below all, ties to the lower column.
std::vector<int32_t> hostTopk(const float *row) {
  std::vector<int32_t> order(kValid);
  std::iota(order.begin(), order.end(), 0);
  auto rank = [](float v) { return std::isnan(v) ? -std::numeric_limits<double>::infinity() - 0.0 : (double)v; };
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    bool na = std::isnan(row[a]), nb = std::isnan(row[b]);
    if (na != nb)
      return nb; // a number before a NaN
    return !na && rank(row[a]) > rank(row[b]);
  });
  order.resize(kTopk);
  return order;
}

std::vector<float> edgeRows(int64_t rows) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(rows * kWidth);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-3, 3);
  for (int64_t r = 0; r < rows; ++r) {
    float *row = x.data() + r * kWidth;
    for (int64_t c = 0; c < kWidth; ++c) {
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
        break; // -inf and small integers (many ties)
      default:
        row[c] = (float)small(rng) * 0.25f;
        break;
      }
      if (c >= kValid)
        row[c] = inf; // padding: never chosen, whatever it holds
    }
  }
  return x;
}

template <tk::dsl::TopkRounds Rounds> void expectHostOrder() {
  const int64_t rows = 12;
  std::vector<float> x = edgeRows(rows);
  std::vector<int32_t> ids(rows * kTopk, -7);
  tk_tensor tx{}, ti{};
  tx.data = x.data(), tx.dtype = TK_F32, tx.ndim = 2, tx.shape[0] = rows, tx.shape[1] = kWidth;
  tx.strides[0] = kWidth, tx.strides[1] = 1, tx.device = TK_DEVICE_CPU;
  ti.data = ids.data(), ti.dtype = TK_I32, ti.ndim = 2, ti.shape[0] = rows, ti.shape[1] = kTopk;
  ti.strides[0] = kTopk, ti.strides[1] = 1, ti.device = TK_DEVICE_CPU;
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  ASSERT_EQ(tk::run(ctx, tk::factoryOf(buildTopk<Rounds>), {&tx, &ti}), TK_SUCCESS) << tk_last_error();
  tk_context_destroy(ctx);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int32_t> want = hostTopk(x.data() + r * kWidth);
    std::vector<int32_t> got(ids.begin() + r * kTopk, ids.begin() + (r + 1) * kTopk);
    EXPECT_EQ(got, want) << "row " << r;
  }
}

TEST(TopkRounds, KeyThenPositionFollowsTheOrder) { expectHostOrder<tk::dsl::TopkRounds::KeyThenPosition>(); }

TEST(TopkRounds, PackedFollowsTheOrder) { expectHostOrder<tk::dsl::TopkRounds::Packed>(); }

TEST(TopkRounds, BothCompileForEveryTarget) {
  for (const char *target : {"sm_80", "sm_90a", "sm_100a"}) {
    std::string packed, plain;
    ASSERT_EQ(tk::compile(tk::factoryOf(buildTopk<tk::dsl::TopkRounds::Packed>), target, packed), TK_SUCCESS)
        << target << ": " << tk_last_error();
    ASSERT_EQ(tk::compile(tk::factoryOf(buildTopk<tk::dsl::TopkRounds::KeyThenPosition>), target, plain), TK_SUCCESS)
        << target << ": " << tk_last_error();
    // Each round: one reduction (two 32-bit shuffles a step) against two (one a step); the same count.
    auto count = [](const std::string &ptx, const std::string &what) {
      size_t n = 0;
      for (size_t at = ptx.find(what); at != std::string::npos; at = ptx.find(what, at + 1))
        ++n;
      return n;
    };
    EXPECT_GT(count(packed, "shfl.sync.bfly.b32"), 0u) << target;
    EXPECT_EQ(count(packed, "shfl.sync.bfly.b32"), count(plain, "shfl.sync.bfly.b32")) << target;
    // One exchange through shared memory a round, not two: half the barriers.
    EXPECT_LT(count(packed, "bar.sync") + count(packed, "barrier.sync"),
              count(plain, "bar.sync") + count(plain, "barrier.sync"))
        << target;
  }
}

} // namespace
