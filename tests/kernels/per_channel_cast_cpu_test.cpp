// The per-channel casts on the CPU path through the C API with host tensors,
// bit-exact against the C++ reference.
#include "bench/per_channel_cast_check.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <string>

namespace {

void runCase(tk_context ctx, const tk::bench::PerChannelCastCase &c) {
  tk::bench::CheckResult r = tk::bench::checkPerChannelCast(nullptr, ctx, c, false);
  EXPECT_EQ(r.status, TK_SUCCESS) << tk::bench::describe(c) << ": " << r.error;
  EXPECT_EQ(r.outMismatches, 0) << tk::bench::describe(c);
  EXPECT_EQ(r.sfMismatches, 0) << tk::bench::describe(c);
}

/// Each of `bad` as the value of the tuning setting `var` is refused through
/// the C API with an error that names the setting; `var` is unset after.
void expectSettingRefused(tk_context ctx, const char *var, std::initializer_list<const char *> bad,
                          const tk::bench::PerChannelCastCase &c = {128, 576, 128, TK_BF16, true, false, 9}) {
  for (const char *value : bad) {
    setenv(var, value, 1);
    tk::bench::CheckResult r = tk::bench::checkPerChannelCast(nullptr, ctx, c, false);
    EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT) << var << "=" << value;
    EXPECT_NE(r.error.find(var), std::string::npos) << r.error;
  }
  unsetenv(var);
}

// Suite names Cpu_<kernel>: the coverage test looks for them.
TEST(Cpu_per_channel_cast, SmallGridIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (int64_t m : {128, 384})
    for (int64_t k : {576, 2048})
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (bool round : {false, true})
          runCase(ctx, {m, k, 128, in, round, false, (uint64_t)(m + k)});
  // 64 channels: narrower than the bf16 cast's 128-channel tile.
  runCase(ctx, {256, 64, 128, TK_BF16, true, false, 64});
  tk_context_destroy(ctx);
}

TEST(Cpu_per_channel_cast_and_transpose, SmallGridIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (int64_t m : {128, 384})
    for (int64_t k : {576, 2048})
      for (int64_t b : {32, 128})
        for (bool round : {false, true})
          runCase(ctx, {m, k, b, TK_BF16, round, true, (uint64_t)(m * 3 + k)});
  tk_context_destroy(ctx);
}

// per_channel_cast_fused with a per-token quantized x (quant.md 4.14; the
// multipliers are not powers of two, so the order fl(fl(dec * xs) * INV)
// matters); its plain form is tk_per_channel_cast's kernel.
TEST(Cpu_per_channel_cast_fused, QuantizedInputIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (int64_t m : {128, 384})
    for (int64_t k : {640, 2048})
      for (bool round : {false, true}) {
        tk::bench::PerChannelCastCase c{m, k, 128, TK_BF16, round, false, (uint64_t)(m + k + round)};
        c.quantized = true;
        runCase(ctx, c);
      }
  tk_context_destroy(ctx);
}

// The row gather (quant.md 4.14): output rows from a MoE routing
// (alignment 128; padding rows -1 read as zeros), plain and quantized x.
TEST(Cpu_per_channel_cast_fused, RowGatherIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int i = 0;
  for (int64_t k : {640, 1024})
    for (bool quantized : {false, true})
      for (bool round : {false, true}) {
        if (quantized && k % 128)
          continue;
        tk::bench::PerChannelCastCase c{97, k, 128, i % 2 ? TK_F32 : TK_BF16, round, false, (uint64_t)(50 + i)};
        c.quantized = quantized;
        c.gatherTopk = 2 + i % 3, c.totalExperts = 8, c.localExperts = 3;
        ++i;
        runCase(ctx, c);
      }
  tk_context_destroy(ctx);
}

} // namespace

namespace {

// swiglu_forward_and_per_channel_cast_and_transpose (quant.md 4.17) on the CPU
// path, whose exponential is the C library's expf (as the reference's here).
TEST(Cpu_swiglu_forward_and_per_channel_cast_and_transpose, SmallGridIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  // M is a multiple of 128 (quant.md 4.17): at b = 32 a CTA walks 8 tiles of
  // 32 rows, so both M here leave one CTA's walk short; 576 channels leave a
  // partial 128-channel tile.
  for (int64_t m : {128, 256})
    for (int64_t h : {576, 1024})
      for (int64_t b : {32, 128})
        for (bool transposed : {true, false})
          for (std::optional<float> clamp : {std::optional<float>(), std::optional<float>(0.5f)}) {
            tk::bench::PerChannelCastCase c{m, h, b, TK_BF16, b == 32, transposed, (uint64_t)(m + h + b)};
            c.swiglu = true;
            c.clamp = clamp;
            runCase(ctx, c);
          }
  tk_context_destroy(ctx);
}

} // namespace

namespace {

// TK_PER_CHANNEL_TILE (a tuning experiment) changes the tile and threads of
// every per-channel kernel, results unchanged; a malformed or unusable value
// is an error through the C API, not a silent default.
TEST(Cpu_per_channel_cast, TileOverrideKeepsResultsAndRejectsBadValues) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (const char *tile : {"256x128x256", "128x16x64"}) {
    setenv("TK_PER_CHANNEL_TILE", tile, 1);
    runCase(ctx, {384, 576, 128, TK_BF16, true, false, 7});
    runCase(ctx, {384, 576, 128, TK_BF16, false, true, 8});
  }
  expectSettingRefused(ctx, "TK_PER_CHANNEL_TILE", {"128x64", "96x64x128", "128x40x128", "128x64x96"});
  runCase(ctx, {128, 576, 128, TK_BF16, true, false, 10});
  tk_context_destroy(ctx);
}

// TK_PER_CHANNEL_TRANSPOSE_ROWS (a tuning experiment) changes the rows per
// thread of the transposed tile, results unchanged; other values are refused.
TEST(Cpu_per_channel_cast, TransposeRowsOverrideKeepsResultsAndRejectsBadValues) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (const char *rows : {"4", "16"}) {
    setenv("TK_PER_CHANNEL_TRANSPOSE_ROWS", rows, 1);
    runCase(ctx, {384, 576, 32, TK_BF16, true, true, 11});
    runCase(ctx, {384, 576, 128, TK_BF16, false, true, 12});
  }
  expectSettingRefused(ctx, "TK_PER_CHANNEL_TRANSPOSE_ROWS", {"2", "12", "32", "eight"},
                       {128, 576, 32, TK_BF16, true, true, 13});
  runCase(ctx, {384, 576, 32, TK_BF16, true, true, 14});
  tk_context_destroy(ctx);
}

// A per-token quantized input's multipliers cover 128 channels each: a tile
// wider than 128 channels reads one per 128 (S11 run 4 found 128 x 256 tiles
// using the first for all), one narrower must not straddle two, and a tile
// width that would is refused.
TEST(Cpu_per_channel_cast_fused, WideAndNarrowTilesOfAQuantizedInputAreBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (const char *tile : {"128x256x256", "128x512x256", "128x32x64"})
    for (bool gather : {false, true}) {
      setenv("TK_PER_CHANNEL_TILE", tile, 1);
      // 128 x 256 codes fill one 32 KB stage; 128 x 512 would not fit one.
      setenv("TK_PER_CHANNEL_PIPELINE", gather || std::string(tile) != "128x256x256" ? "" : "1x1", 1);
      tk::bench::PerChannelCastCase c{gather ? 97 : 256, 1024, 128, TK_BF16, true, false, 41};
      c.quantized = true;
      if (gather)
        c.gatherTopk = 2, c.totalExperts = 8, c.localExperts = 3;
      runCase(ctx, c);
    }
  unsetenv("TK_PER_CHANNEL_PIPELINE");
  setenv("TK_PER_CHANNEL_TILE", "128x48x64", 1);
  tk::bench::PerChannelCastCase q{128, 1024, 128, TK_BF16, true, false, 42};
  q.quantized = true;
  tk::bench::CheckResult r = tk::bench::checkPerChannelCast(nullptr, ctx, q, false);
  EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(r.error.find("128 channels"), std::string::npos) << r.error;
  unsetenv("TK_PER_CHANNEL_TILE");
  tk_context_destroy(ctx);
}

// TK_PER_CHANNEL_ACCESS_BYTES and TK_PER_CHANNEL_RELOAD (tuning experiments:
// narrower accesses; the input read again after the reduction instead of
// kept in registers) keep results exact, pipelined or not, quantized or
// gathered; other values, and of TK_PER_CHANNEL_REREAD, are C API errors
// that name the setting.
TEST(Cpu_per_channel_cast, AccessAndReloadSettingsKeepResultsAndRejectBadValues) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (const char *access : {"4", "8", "16"})
    for (const char *reload : {"0", "1"}) {
      setenv("TK_PER_CHANNEL_ACCESS_BYTES", access, 1);
      setenv("TK_PER_CHANNEL_RELOAD", reload, 1);
      runCase(ctx, {384, 576, 128, TK_BF16, true, false, 31});  // pipelined: the reload reads shared memory
      runCase(ctx, {384, 576, 32, TK_BF16, false, true, 32});   // transposed: no reload
      tk::bench::PerChannelCastCase q{256, 640, 128, TK_BF16, true, false, 33};
      q.quantized = true;                                       // reloads codes and multipliers
      runCase(ctx, q);
      tk::bench::PerChannelCastCase g{97, 640, 128, TK_BF16, false, false, 34};
      g.quantized = true, g.gatherTopk = 2, g.totalExperts = 8, g.localExperts = 3;
      runCase(ctx, g);                                          // gathers the rows again
    }
  unsetenv("TK_PER_CHANNEL_RELOAD");
  expectSettingRefused(ctx, "TK_PER_CHANNEL_ACCESS_BYTES", {"2", "12", "32", "x"});
  for (const char *setting : {"TK_PER_CHANNEL_RELOAD", "TK_PER_CHANNEL_REREAD"})
    expectSettingRefused(ctx, setting, {"2", "-1", "on"});
  tk_context_destroy(ctx);
}

} // namespace

namespace {

// TK_PER_CHANNEL_PIPELINE: each CTA walks several row tiles through a
// tile.pipeline (buffer versions, copies ahead, guards past the last tile).
// The CPU path runs the pipelined schedule sequentially, so its indexing is
// checked bit-exact here; the row gather keeps its unpipelined kernel; an
// unusable value is a C API error.
TEST(Cpu_per_channel_cast, PipelinedScheduleIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (const char *pipeline : {"1x3", "2x2", "3x5", "8x4"}) {
    setenv("TK_PER_CHANNEL_TILE", "128x32x128", 1); // 8 KB bf16 stages: up to 5 fit
    setenv("TK_PER_CHANNEL_PIPELINE", pipeline, 1);
    runCase(ctx, {640, 576, 128, TK_BF16, false, false, 21});     // 5 row tiles, tiles per CTA do not divide them
    runCase(ctx, {384, 576, 128, TK_F32, true, false, 22});       // f32: fewer stages fit
    runCase(ctx, {384, 576, 32, TK_BF16, false, true, 23});       // transposed, b = 32
    tk::bench::PerChannelCastCase q{384, 640, 128, TK_BF16, false, false, 24};
    q.quantized = true;
    runCase(ctx, q);
    tk::bench::PerChannelCastCase s{256, 576, 128, TK_BF16, false, true, 25};
    s.swiglu = true, s.clamp = 0.5f;                               // two buffers (gate, linear)
    runCase(ctx, s);
    tk::bench::PerChannelCastCase g{97, 640, 128, TK_BF16, false, false, 26};
    g.gatherTopk = 2, g.totalExperts = 8, g.localExperts = 3;
    runCase(ctx, g);
  }
  unsetenv("TK_PER_CHANNEL_TILE");
  expectSettingRefused(ctx, "TK_PER_CHANNEL_PIPELINE", {"3", "0x4", "9x2", "2x65", "2x4x1"});
  setenv("TK_PER_CHANNEL_TILE", "256x64x256", 1); // one f32 stage is 64 KB: none fits
  setenv("TK_PER_CHANNEL_PIPELINE", "2x2", 1);
  tk::bench::CheckResult r = tk::bench::checkPerChannelCast(nullptr, ctx, {256, 576, 128, TK_F32, false, false, 9},
                                                            false);
  EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(r.error.find("shared memory"), std::string::npos) << r.error;
  unsetenv("TK_PER_CHANNEL_TILE");
  unsetenv("TK_PER_CHANNEL_PIPELINE");
  tk_context_destroy(ctx);
}

} // namespace
