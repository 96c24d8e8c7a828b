// swiglu_forward_and_per_token_cast (quant.md 4.16) on the CPU path through
// the C API with host tensors, bit-exact against the C++ reference (both use
// the C library's expf here), clamp counts exact.
#include "checks/swiglu_check.h"

#include "tests/kernels/schedule_context.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

void runCase(tk_context ctx, const tk::checks::SwigluCastCase &c) {
  tk::checks::CheckResult r = tk::checks::checkSwigluPerTokenCast(nullptr, ctx, c, false);
  EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
  EXPECT_EQ(r.outMismatches, 0) << tk::checks::describe(c);
  EXPECT_EQ(r.sfMismatches, 0) << tk::checks::describe(c);
  EXPECT_EQ(r.countMismatches, 0) << tk::checks::describe(c);
}

using tk::test::ScheduledContext;

// The persistent counting schedule (block totals; count_blocks) counts the
// same; a value out of range is a clear error when the context is made.
TEST(Cpu_swiglu_forward_and_per_token_cast, PersistentCountingIsExact) {
  {
    ScheduledContext ctx("swiglu_forward_and_per_token_cast:count_blocks=4");
    tk::checks::SwigluCastCase c{1280, 128};
    c.weights = c.experts = true, c.clamp = 0.5f, c.count = true;
    c.tokens = 97, c.topk = 3, c.totalExperts = 8, c.localExperts = 3, c.alignment = 16;
    runCase(ctx, c);
    tk::checks::SwigluCastCase plain{256, 128}; // no counting: count_blocks does not apply
    plain.plainRows = 16;
    runCase(ctx, plain);
  }
  setenv("TK_SCHEDULE", "swiglu_forward_and_per_token_cast:count_blocks=33", 1);
  tk_context ctx = nullptr;
  EXPECT_EQ(tk_context_create(&ctx), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("count_blocks must be 1..32, got 33"), std::string::npos)
      << tk_last_error();
  unsetenv("TK_SCHEDULE");
}

// A tile's three clamp counts are reduced in two int32 reductions (the first
// two as 16-bit fields of one word) when the tile has fewer than 2^16
// values, else in three reductions: whole rows of H = 32768 (g = H) take the
// packed form one row per tile (the default) and the three reductions two
// rows per tile (rows=2,threads=256: 65536 values, 256 per thread); both count exactly (a mutation of
// either path fails it). With the clamp 0.05 about half of the randn values
// are past it.
TEST(Cpu_swiglu_forward_and_per_token_cast, PackedAndWideTileCountsAreExact) {
  tk::checks::SwigluCastCase c{32768, 32768};
  c.clamp = 0.05f, c.count = true, c.plainRows = 70, c.seed = 7;
  {
    tk_context ctx;
    ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
    runCase(ctx, c);
    tk_context_destroy(ctx);
  }
  ScheduledContext wide("swiglu_forward_and_per_token_cast:rows=2,threads=256");
  runCase(wide, c);
}

// rows per tile and threads per block keep results and counts exact, with a
// partial last tile of rows; a value that does not parse is a clear error.
TEST(Cpu_swiglu_forward_and_per_token_cast, ScheduledTilesKeepResultsAndRejectBadValues) {
  for (const char *tile : {"rows=2,threads=256", "rows=1,threads=128", "rows=4,threads=64"}) {
    ScheduledContext ctx(std::string("swiglu_forward_and_per_token_cast:") + tile);
    tk::checks::SwigluCastCase c{2048, 128};
    c.weights = true, c.clamp = 0.5f, c.count = true, c.plainRows = 7;
    runCase(ctx, c);
    tk::checks::SwigluCastCase moe{1280, 128};
    moe.weights = moe.experts = true, moe.tokens = 41, moe.topk = 2, moe.totalExperts = 8, moe.localExperts = 3,
    moe.alignment = 16;
    runCase(ctx, moe);
  }
  for (const char *bad : {"rows=3", "threads=48", "rows=128", "rows"}) {
    setenv("TK_SCHEDULE", (std::string("swiglu_forward_and_per_token_cast:") + bad).c_str(), 1);
    tk_context ctx = nullptr;
    EXPECT_EQ(tk_context_create(&ctx), TK_ERROR_INVALID_ARGUMENT) << bad;
    EXPECT_NE(std::string(tk_last_error()).find("TK_SCHEDULE: swiglu_forward_and_per_token_cast: "),
              std::string::npos)
        << tk_last_error();
    unsetenv("TK_SCHEDULE");
  }
}

} // namespace
