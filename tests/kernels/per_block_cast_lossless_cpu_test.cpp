// per_block_cast_lossless (quant.md 4.9) on the CPU path through the C API:
// bit-exact against the reference and the lossless property per element.
#include "checks/lossless_check.h"

#include "tests/kernels/schedule_context.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>

namespace {

void expectExact(tk_context ctx, const tk::checks::LosslessCase &c) {
  tk::checks::CheckResult r = tk::checks::checkPerBlockLossless(nullptr, ctx, c, false);
  EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
  EXPECT_EQ(r.outMismatches, 0) << tk::checks::describe(c);
  EXPECT_EQ(r.sfMismatches, 0) << tk::checks::describe(c);
}

// An input block 12 exponents below its output block's maximum cannot be
// represented: the call fails (the reference would abort the kernel).
TEST(Cpu_per_block_cast_lossless, OutOfRangeExponentIsAnError) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (bool inPacked : {false, true}) {
    tk::checks::LosslessCase c{37, 576, 1, 32, 1, 128, inPacked, false, 9, /*outOfRange=*/true};
    tk::checks::CheckResult r = tk::checks::checkPerBlockLossless(nullptr, ctx, c, false);
    EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
    EXPECT_NE(std::string(tk_last_error()).find("cannot be re-blocked into e4m3 exactly"), std::string::npos)
        << tk_last_error();
  }
  tk_context_destroy(ctx);
}

// An input scale that is not a power of two (or 0) cannot be re-blocked
// exactly: the call fails with TK_ERROR_INVALID_DATA (it was accepted with an
// inexact result). Packed UE8M0 input holds exponents only: its NaN byte.
TEST(Cpu_per_block_cast_lossless, ScalesThatAreNotPowersOfTwoAreInvalidData) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (bool inPacked : {false, true})
    for (float bad : {3.0f, -2.0f, nan, inf, 1.5e-40f}) {
      if (inPacked && bad != inf)
        continue; // only an exponent byte of 255 is not a power of two there
      for (auto [bOut, gOut] : std::vector<std::pair<int64_t, int64_t>>{{1, 128}, {128, 128}}) {
        tk::checks::LosslessCase c{37, 576, 1, 32, bOut, gOut, inPacked, false, 9};
        c.badScale = bad;
        tk::checks::CheckResult r = tk::checks::checkPerBlockLossless(nullptr, ctx, c, false);
        EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
        EXPECT_NE(std::string(tk_last_error()).find("not a power of two"), std::string::npos) << tk_last_error();
      }
    }
  tk_context_destroy(ctx);
}

// The schedule's tile and threads change every lossless kernel's split of
// the work, results unchanged; a tile that does not fit is an error through
// the C API, not a silent default.
TEST(Cpu_per_block_cast_lossless, ScheduledTilesKeepResultsAndRejectBadValues) {
  for (const char *tile : {"rows=32,cols=256,threads=128", "rows=128,cols=256,threads=512"}) {
    tk::test::ScheduledContext ctx(std::string("per_block_cast_lossless:") + tile);
    expectExact(ctx, {130, 2048, 1, 32, 1, 128, true, true, 31});
    expectExact(ctx, {130, 576, 1, 32, 32, 128, false, false, 32}); // partial tiles along both dimensions
  }
  // Columns not whole blocks; rows not whole 32-row blocks; 512 threads with
  // fewer than 16 values each.
  for (const char *bad : {"rows=32,cols=200,threads=128", "rows=16,cols=256,threads=128",
                          "rows=32,cols=128,threads=512"}) {
    tk::test::ScheduledContext ctx(std::string("per_block_cast_lossless:") + bad);
    tk::checks::CheckResult r = tk::checks::checkPerBlockLossless(nullptr, ctx, {64, 576, 1, 32, 32, 128}, false);
    EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT) << bad;
    EXPECT_NE(r.error.find("TK_SCHEDULE: per_block_cast_lossless: "), std::string::npos) << r.error;
  }
  for (const char *bad : {"threads=96", "cols=16", "rows=32x256"}) {
    setenv("TK_SCHEDULE", (std::string("per_block_cast_lossless:") + bad).c_str(), 1);
    tk_context ctx = nullptr;
    EXPECT_EQ(tk_context_create(&ctx), TK_ERROR_INVALID_ARGUMENT) << bad;
    unsetenv("TK_SCHEDULE");
  }
}

// Block heights that are not powers of two are valid per the spec but not
// built: a clear refusal, not a wrong answer.
TEST(Cpu_per_block_cast_lossless, OddBlockHeightsAreUnsupported) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::checks::CheckResult r = tk::checks::checkPerBlockLossless(nullptr, ctx, {37, 576, 3, 32, 3, 128}, false);
  EXPECT_EQ(r.status, TK_ERROR_UNSUPPORTED);
  EXPECT_NE(r.error.find("block heights that are not powers of two"), std::string::npos) << r.error;
  r = tk::checks::checkPerBlockLossless(nullptr, ctx, {130, 576, 1, 32, 48, 128}, false);
  EXPECT_EQ(r.status, TK_ERROR_UNSUPPORTED);
  tk_context_destroy(ctx);
}

} // namespace
