// transpose and batched_transpose on the CPU path, bit-exact against the reference.
#include "checks/transpose_check.h"
#include "kernels/transpose/batched_transpose.h"
#include "tests/kernels/schedule_context.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

// The default tile and threads per element size (batched_transpose.h).
TEST(Cpu_batched_transpose, DefaultTilePerElementSize) {
  using tk::kernels::transpose::TransposeConfig;
  using tk::dsl::DType;
  auto shape = [](const TransposeConfig &c) {
    return std::to_string(c.tileR()) + "x" + std::to_string(c.tileC()) + "/" + std::to_string(c.numThreads());
  };
  EXPECT_EQ(shape({4096, 7168, DType::I8}), "128x128/256");
  EXPECT_EQ(shape({4096, 7168, DType::I16}), "128x128/256");
  EXPECT_EQ(shape({4096, 7168, DType::I32}), "64x64/128");
  EXPECT_EQ(shape({4096, 576, DType::I16}), "128x64/128");
  EXPECT_EQ(shape({4032, 7168, DType::I8}), "64x64/128");
  TransposeConfig explicitThreads{4096, 7168, DType::I8};
  explicitThreads.threads = 64;
  EXPECT_EQ(shape(explicitThreads), "128x128/64");
}

// Non-square and larger tiles (the schedule's rows and cols) move every
// element to the same place; a tile that does not divide the shape, or
// fields outside their range, are clear errors naming TK_SCHEDULE.
TEST(Cpu_batched_transpose, ScheduledTilesAreBitExact) {
  using tk::test::ScheduledContext;
  int n = 0;
  for (const char *tile : {"rows=64,cols=128", "rows=128,cols=64", "rows=128,cols=128", "rows=32,cols=64",
                           "rows=16,cols=256"}) {
    ScheduledContext ctx(std::string("transpose:") + tile);
    for (tk_dtype t : {TK_F8_E4M3, TK_BF16, TK_F32})
      for (int64_t stride : {0l, 512l}) {
        if (t == TK_F32 && std::string(tile) == "rows=128,cols=128")
          continue; // 64 KB: refused below
        tk::checks::TransposeCase tc{2, 256, 256, t, stride, /*batched=*/true};
        tk::checks::CheckResult res = tk::checks::checkTranspose(nullptr, ctx, tc, false);
        EXPECT_EQ(res.status, TK_SUCCESS) << tile << " " << tk::checks::describe(tc) << ": " << res.error;
        EXPECT_EQ(res.outMismatches, 0) << tile << " " << tk::checks::describe(tc);
        ++n;
      }
  }
  {
    ScheduledContext ctx("transpose:rows=128,cols=128");
    tk::checks::CheckResult res = tk::checks::checkTranspose(nullptr, ctx, {1, 192, 128, TK_BF16, 0, true}, false);
    EXPECT_EQ(res.status, TK_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(res.error.find("TK_SCHEDULE: transpose: a 128 x 128 tile does not divide 192 x 128"), std::string::npos)
        << res.error;
    res = tk::checks::checkTranspose(nullptr, ctx, {1, 256, 256, TK_F32, 0, true}, false);
    EXPECT_EQ(res.status, TK_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(res.error.find("takes 65536 bytes of i32, over 32768"), std::string::npos) << res.error;
  }
  // threads: TileKernels' 256 threads on 128 x 128 tiles, and 64 on the default tile.
  for (const char *schedule : {"transpose:rows=128,cols=128,threads=256", "transpose:rows=64,cols=64,threads=64"}) {
    ScheduledContext ctx(schedule);
    for (tk_dtype t : {TK_F8_E4M3, TK_BF16}) {
      tk::checks::TransposeCase tc{2, 256, 256, t, 0, /*batched=*/true};
      tk::checks::CheckResult res = tk::checks::checkTranspose(nullptr, ctx, tc, false);
      EXPECT_EQ(res.status, TK_SUCCESS) << schedule << " " << tk::checks::describe(tc) << ": " << res.error;
      EXPECT_EQ(res.outMismatches, 0) << schedule << " " << tk::checks::describe(tc);
      ++n;
    }
  }
  std::printf("[ batched_transpose ] %d CPU cases with scheduled tiles compared\n", n);
}

// A malformed TK_SCHEDULE entry fails when the context is made; one that
// parses but does not fit the call fails the call, naming the field.
TEST(Cpu_batched_transpose, BadSchedulesAreRefused) {
  for (const char *bad : {"transpose:threads=96", "transpose:rows=8", "transpose:tile=64", "transpose:rows=x",
                          "no_such_op:rows=64", "transpose"}) {
    setenv("TK_SCHEDULE", bad, 1);
    tk_context ctx = nullptr;
    EXPECT_EQ(tk_context_create(&ctx), TK_ERROR_INVALID_ARGUMENT) << bad;
    EXPECT_NE(std::string(tk_last_error()).find("TK_SCHEDULE"), std::string::npos) << bad << ": " << tk_last_error();
    unsetenv("TK_SCHEDULE");
  }
  setenv("TK_SCHEDULE", "transpose:threads=96", 1);
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("threads must be a power of two from 32 to 1024, got 96"),
            std::string::npos)
      << tk_last_error();
  unsetenv("TK_SCHEDULE");
}

} // namespace
