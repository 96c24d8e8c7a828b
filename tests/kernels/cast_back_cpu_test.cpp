// cast_back on the CPU path through the C API with host tensors, bit-exact
// against the C++ reference.
#include "bench/cast_back_check.h"

#include <gtest/gtest.h>

namespace {

// Suite name Cpu_<kernel>: the coverage test looks for it.
TEST(Cpu_cast_back, SmallGridIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int cases = 0;
  for (int64_t m : {1, 37, 130})
    for (int64_t k : {576, 2048, 7168})
      for (auto [b, g] : std::vector<std::pair<int64_t, int64_t>>{{1, 128}, {1, k}, {128, 1}, {128, 128}, {32, 32}})
        for (tk_dtype out : {TK_BF16, TK_F32})
          for (bool col : {false, true}) {
            tk::bench::CastBackCase c{m, k, b, g, out, col, /*powerOfTwoSf=*/m == 37};
            tk::bench::CheckResult r = tk::bench::checkCastBack(nullptr, ctx, c, false);
            EXPECT_EQ(r.status, TK_SUCCESS) << tk::bench::describe(c) << ": " << r.error;
            EXPECT_EQ(r.outMismatches, 0) << tk::bench::describe(c);
            ++cases;
          }
  // Packed e2m1 input (two codes per byte), per-token and blocked scales.
  for (int64_t k : {576, 2048})
    for (auto [b, g] : std::vector<std::pair<int64_t, int64_t>>{{1, 32}, {1, k}, {128, 128}, {128, 1}})
      for (tk_dtype out : {TK_BF16, TK_F32}) {
        tk::bench::CastBackCase c{37, k, b, g, out, false, true, false, TK_FORMAT_E2M1};
        tk::bench::CheckResult r = tk::bench::checkCastBack(nullptr, ctx, c, false);
        EXPECT_EQ(r.status, TK_SUCCESS) << tk::bench::describe(c) << ": " << r.error;
        EXPECT_EQ(r.outMismatches, 0) << tk::bench::describe(c);
        ++cases;
      }
  // Packed e5m6 input (quant.md 4.12): g = K with row- and column-major and
  // packed scale factors, blocked scales, a K that is no multiple of 64.
  for (int64_t k : {576, 2048, 7176})
    for (auto [b, g] : std::vector<std::pair<int64_t, int64_t>>{{1, k}, {1, 8}, {128, 128}})
      for (tk_dtype out : {TK_BF16, TK_F32})
        for (bool packed : {false, true}) {
          tk::bench::CastBackCase c{37, k, b, g, out, packed, true, packed, TK_FORMAT_E5M6};
          tk::bench::CheckResult r = tk::bench::checkCastBack(nullptr, ctx, c, false);
          EXPECT_EQ(r.status, TK_SUCCESS) << tk::bench::describe(c) << ": " << r.error;
          EXPECT_EQ(r.outMismatches, 0) << tk::bench::describe(c);
          ++cases;
        }
  // Packed UE8M0 scale factors (per-token and blocked).
  for (int64_t m : {37, 130})
    for (auto [b, g] : std::vector<std::pair<int64_t, int64_t>>{{1, 128}, {1, 2048}, {128, 128}, {128, 1}, {32, 32}})
      for (tk_dtype out : {TK_BF16, TK_F32}) {
        tk::bench::CastBackCase c{m, 2048, b, g, out, true, true, true};
        tk::bench::CheckResult r = tk::bench::checkCastBack(nullptr, ctx, c, false);
        EXPECT_EQ(r.status, TK_SUCCESS) << tk::bench::describe(c) << ": " << r.error;
        EXPECT_EQ(r.outMismatches, 0) << tk::bench::describe(c);
        ++cases;
      }
  std::printf("[ cast_back ] %d CPU cases compared\n", cases);
  tk_context_destroy(ctx);
}

} // namespace
