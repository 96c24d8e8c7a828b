// The per-channel casts on the CPU path through the C API with host tensors,
// bit-exact against the C++ reference.
#include "checks/per_channel_cast_check.h"
#include "tests/kernels/schedule_context.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <string>

namespace {

void runCase(tk_context ctx, const tk::checks::PerChannelCastCase &c) {
  tk::checks::CheckResult r = tk::checks::checkPerChannelCast(nullptr, ctx, c, false);
  EXPECT_EQ(r.status, TK_SUCCESS) << tk::checks::describe(c) << ": " << r.error;
  EXPECT_EQ(r.outMismatches, 0) << tk::checks::describe(c);
  EXPECT_EQ(r.sfMismatches, 0) << tk::checks::describe(c);
}

using tk::test::ScheduledContext;

/// Each of `bad` as per_channel_cast's schedule is refused through the C API
/// with an error that names TK_SCHEDULE and `expected`: by tk_context_create
/// where the fields do not parse, else by the call.
void expectScheduleRefused(std::initializer_list<const char *> bad, const std::string &expected,
                           const tk::checks::PerChannelCastCase &c = {128, 576, 128, TK_BF16, true, false, 9}) {
  for (const char *fields : bad) {
    const std::string schedule = std::string("per_channel_cast:") + fields;
    setenv("TK_SCHEDULE", schedule.c_str(), 1);
    tk_context ctx = nullptr;
    tk_status created = tk_context_create(&ctx);
    unsetenv("TK_SCHEDULE");
    std::string error = created == TK_SUCCESS ? "" : tk_last_error();
    if (created == TK_SUCCESS) {
      tk::checks::CheckResult r = tk::checks::checkPerChannelCast(nullptr, ctx, c, false);
      EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT) << schedule;
      error = r.error;
      tk_context_destroy(ctx);
    } else {
      EXPECT_EQ(created, TK_ERROR_INVALID_ARGUMENT) << schedule;
    }
    EXPECT_NE(error.find("TK_SCHEDULE"), std::string::npos) << schedule << ": " << error;
    EXPECT_NE(error.find(expected), std::string::npos) << schedule << ": " << error;
  }
}

} // namespace

namespace {

} // namespace

namespace {

// The schedule's tile and threads change every per-channel kernel's split of
// the work, results unchanged; a tile that does not fit is an error through
// the C API, not a silent default.
TEST(Cpu_per_channel_cast, ScheduledTilesKeepResultsAndRejectBadValues) {
  for (const char *tile : {"rows=256,cols=128,threads=256", "rows=128,cols=16,threads=64"}) {
    ScheduledContext ctx(std::string("per_channel_cast:") + tile);
    runCase(ctx, {384, 576, 128, TK_BF16, true, false, 7});
    runCase(ctx, {384, 576, 128, TK_BF16, false, true, 8});
  }
  expectScheduleRefused({"rows=96"}, "rows must be a multiple of b = 128, got 96");
  expectScheduleRefused({"cols=40"}, "cols must be a multiple of 16, got 40");
  expectScheduleRefused({"threads=96"}, "threads must be a power of two from 32 to 1024, got 96");
  expectScheduleRefused({"rows=128x64", "tile=128"}, "per_channel_cast");
}

// trows changes the rows per thread of the transposed tile, results
// unchanged; other values are refused.
TEST(Cpu_per_channel_cast, TransposeRowsKeepResultsAndRejectBadValues) {
  for (const char *rows : {"4", "16"}) {
    ScheduledContext ctx(std::string("per_channel_cast:trows=") + rows);
    runCase(ctx, {384, 576, 32, TK_BF16, true, true, 11});
    runCase(ctx, {384, 576, 128, TK_BF16, false, true, 12});
  }
  expectScheduleRefused({"trows=2", "trows=12", "trows=32"}, "trows must be a power of two from 4 to 16");
  expectScheduleRefused({"trows=eight"}, "trows takes an integer, got 'eight'");
}

// A per-token quantized input's multipliers cover 128 channels each: a tile
// wider than 128 channels reads one per 128 (an earlier kernel used the
// first for all), one narrower must not straddle two, and a tile width that
// would is refused.
TEST(Cpu_per_channel_cast_fused, WideAndNarrowTilesOfAQuantizedInputAreBitExact) {
  for (const char *tile : {"rows=128,cols=256,threads=256", "rows=128,cols=512,threads=256", "rows=128,cols=32,threads=64"})
    for (bool gather : {false, true}) {
      // 128 x 256 codes fill one 32 KB stage; 128 x 512 would not fit one.
      const bool oneStage = !gather && std::string(tile) == "rows=128,cols=256,threads=256";
      ScheduledContext ctx(std::string("per_channel_cast:") + tile + (oneStage ? ",stages=1,tiles=1" : ""));
      tk::checks::PerChannelCastCase c{gather ? 97 : 256, 1024, 128, TK_BF16, true, false, 41};
      c.quantized = true;
      if (gather)
        c.gatherTopk = 2, c.totalExperts = 8, c.localExperts = 3;
      runCase(ctx, c);
    }
  tk::checks::PerChannelCastCase q{128, 1024, 128, TK_BF16, true, false, 42};
  q.quantized = true;
  expectScheduleRefused({"rows=128,cols=48,threads=64"}, "128 channels", q);
}

// access and reload (narrower accesses; the input read again after the
// reduction instead of kept in registers) keep results exact, pipelined or
// not, quantized or gathered; other values, and of reread, are refused.
TEST(Cpu_per_channel_cast, AccessAndReloadKeepResultsAndRejectBadValues) {
  for (const char *access : {"4", "8", "16"})
    for (const char *reload : {"0", "1"}) {
      ScheduledContext ctx(std::string("per_channel_cast:access=") + access + ",reload=" + reload);
      runCase(ctx, {384, 576, 128, TK_BF16, true, false, 31});  // pipelined: the reload reads shared memory
      runCase(ctx, {384, 576, 32, TK_BF16, false, true, 32});   // transposed: no reload
      tk::checks::PerChannelCastCase q{256, 640, 128, TK_BF16, true, false, 33};
      q.quantized = true;                                       // reloads codes and multipliers
      runCase(ctx, q);
      tk::checks::PerChannelCastCase g{97, 640, 128, TK_BF16, false, false, 34};
      g.quantized = true, g.gatherTopk = 2, g.totalExperts = 8, g.localExperts = 3;
      runCase(ctx, g);                                          // gathers the rows again
    }
  expectScheduleRefused({"access=2", "access=12", "access=32"}, "access must be a power of two from 4 to 16");
  expectScheduleRefused({"reload=2", "reload=-1", "reread=2"}, "must be 0..1");
  expectScheduleRefused({"reload=on"}, "reload takes an integer");
}

} // namespace

namespace {

// A pipeline: each CTA walks several row tiles through a tile.pipeline
// (buffer versions, copies ahead, guards past the last tile). The CPU path
// runs the pipelined schedule sequentially, so its indexing is checked
// bit-exact here; a tile whose one stage does not fit is a C API error.
TEST(Cpu_per_channel_cast, PipelinedScheduleIsBitExact) {
  for (const char *pipeline : {"stages=1,tiles=3", "stages=2,tiles=2", "stages=3,tiles=5", "stages=5,tiles=4"}) {
    // 8 KB bf16 stages: up to 5 fit
    ScheduledContext ctx(std::string("per_channel_cast:rows=128,cols=32,threads=128,") + pipeline);
    runCase(ctx, {640, 576, 128, TK_BF16, false, false, 21});     // 5 row tiles, tiles per CTA do not divide them
    runCase(ctx, {384, 576, 32, TK_BF16, false, true, 23});       // transposed, b = 32
    tk::checks::PerChannelCastCase q{384, 640, 128, TK_BF16, false, false, 24};
    q.quantized = true;
    runCase(ctx, q);
  }
  for (const char *pipeline : {"stages=1,tiles=3", "stages=2,tiles=3"}) {
    // 16 KB stages (SwiGLU's gate and linear buffers; f32): 2 fit
    ScheduledContext ctx(std::string("per_channel_cast:rows=128,cols=32,threads=128,") + pipeline);
    tk::checks::PerChannelCastCase s{256, 576, 128, TK_BF16, false, true, 25};
    s.swiglu = true, s.clamp = 0.5f;
    runCase(ctx, s);
    runCase(ctx, {384, 576, 128, TK_F32, true, false, 22});
  }
  {
    // TK_SCHEDULE applies to every per-channel call: the row gather, which
    // has no pipeline, leaves the stages and tiles aside.
    ScheduledContext ctx("per_channel_cast:stages=2,tiles=2");
    tk::checks::PerChannelCastCase g{97, 640, 128, TK_BF16, false, false, 26};
    g.gatherTopk = 2, g.totalExperts = 8, g.localExperts = 3;
    runCase(ctx, g);
  }
  expectScheduleRefused({"stages=9", "tiles=65", "tiles=0"}, "per_channel_cast");
  // One f32 stage of a 256 x 64 tile is 64 KB: none fits.
  expectScheduleRefused({"rows=256,cols=64,threads=256,stages=2,tiles=2"}, "bytes a pipeline may take",
                        {256, 576, 128, TK_F32, false, false, 9});
  {
    // Stages are a ceiling: 3 stages of 16 KB f32 tiles run as the 2 that fit.
    ScheduledContext ctx("per_channel_cast:rows=128,cols=32,threads=128,stages=3,tiles=2");
    runCase(ctx, {384, 576, 128, TK_F32, true, false, 22});
  }
}

} // namespace
