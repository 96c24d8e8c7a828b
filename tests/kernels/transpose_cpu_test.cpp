// transpose and batched_transpose on the CPU path, bit-exact against the reference.
#include "bench/transpose_check.h"

#include <gtest/gtest.h>

namespace {

void grid(bool batched) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int n = 0;
  for (int64_t b : batched ? std::vector<int64_t>{1, 3} : std::vector<int64_t>{1})
    for (int64_t r : {64, 192})
      for (int64_t c : {64, 128})
        for (tk_dtype t : {TK_F8_E4M3, TK_BF16, TK_F32})
          for (int64_t stride : {0l, 2 * c}) {
            tk::bench::TransposeCase tc{b, r, c, t, stride, batched};
            tk::bench::CheckResult res = tk::bench::checkTranspose(nullptr, ctx, tc, false);
            EXPECT_EQ(res.status, TK_SUCCESS) << tk::bench::describe(tc) << ": " << res.error;
            EXPECT_EQ(res.outMismatches, 0) << tk::bench::describe(tc);
            ++n;
          }
  std::printf("[ %s ] %d CPU cases compared\n", batched ? "batched_transpose" : "transpose", n);
  tk_context_destroy(ctx);
}

TEST(Cpu_transpose, MatchesTheReference) { grid(false); }
TEST(Cpu_batched_transpose, MatchesTheReference) { grid(true); }

} // namespace
