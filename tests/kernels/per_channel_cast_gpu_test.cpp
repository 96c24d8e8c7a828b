// The per-channel casts on a GPU over the spec's grids (quant.md 4.13 and
// 4.15), bit-exact against the reference. Skips visibly without a device.
#include "bench/per_channel_cast_check.h"
#include "bench/swiglu_check.h"
#include "tests/kernels/gpu_suite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>

namespace {

class PerChannelCastGpu : public GpuSuite<PerChannelCastGpu> {};

TEST_F(PerChannelCastGpu, SpecGridsAreBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  CaseTally tally;
  auto run = [&](const tk::bench::PerChannelCastCase &c) {
    tk::bench::CheckResult r = tk::bench::checkPerChannelCast(session, ctx, c, false);
    tally.check(r, tk::bench::describe(c));
  };
  // M in {4096, 8064} x the seven K x round_sf; per_channel_cast with b = 128
  // on bf16, the transposed form with b in {32, 128}.
  for (int64_t m : {4096, 8064})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (bool round : {false, true}) {
        run({m, k, 128, TK_BF16, round, false, (uint64_t)(m + k)});
        for (int64_t b : {32, 128})
          run({m, k, b, TK_BF16, round, true, (uint64_t)(m + k + b)});
      }
  // per_channel_cast_fused with a quantized x (quant.md 4.14, the non-MoE
  // case without an index): N in {4096, 8064} x K in {2048, ..., 7168} x round_sf.
  for (int64_t m : {4096, 8064})
    for (int64_t k : {2048, 2560, 3072, 4096, 6144, 7168})
      for (bool round : {false, true}) {
        tk::bench::PerChannelCastCase c{m, k, 128, TK_BF16, round, false, (uint64_t)(m + k + 7)};
        c.quantized = true;
        run(c);
      }
  // The row gather (quant.md 4.14 MoE grid): 4001 tokens, K in {2048, ...,
  // 7168} x quantized x in {F, T} x round_sf, the mappings cycling through
  // top-k {2, 6, 8, 9} and (experts, ranks) {(72, 8), (256, 8), (256, 64)}
  // with alignment 128.
  int i = 0;
  for (int64_t k : {2048, 2560, 3072, 4096, 6144, 7168})
    for (bool quantized : {false, true})
      for (bool round : {false, true}) {
        tk::bench::PerChannelCastCase c{4001, k, 128, TK_BF16, round, false, (uint64_t)(300 + i)};
        c.quantized = quantized;
        tk::bench::MoeShape moe = tk::bench::specMoeShape(i);
        c.gatherTopk = moe.topk, c.totalExperts = moe.totalExperts, c.localExperts = moe.localExperts;
        ++i;
        run(c);
      }
  tally.report("per_channel_cast", *session);
  tk_context_destroy(ctx);
}

// swiglu_forward_and_per_channel_cast_and_transpose (quant.md 4.17): M in
// {4096, 8064} x H in {576, ..., 7168} x b in {32, 128} x without_transpose x
// round_sf x clamp in {none, 10, 0.5}; one random x per shape. The reference's
// exponential is CUDA's expf, computed on this GPU by the nvcc-compiled oracle.
TEST_F(PerChannelCastGpu, SwigluSpecGridIsBitExact) {
  TK_SKIP_WITHOUT_EXPF_ORACLE();
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::bench::ExpTable deviceExp = tk::bench::deviceExpTable(*session, tk::bench::bf16SwigluExpArguments());
  CaseTally tally;
  for (int64_t m : {4096, 8064})
    for (int64_t h : {576, 2048, 2560, 3072, 4096, 6144, 7168}) {
      std::vector<uint8_t> x = tk::bench::makeInput(tk::bench::PerTokenCastCase{m, 2 * h, 128, TK_BF16, 0, 0,
                                                                                (uint64_t)(m + h)});
      for (int64_t b : {32, 128})
        for (bool transposed : {true, false})
          for (bool round : {false, true})
            for (std::optional<float> clamp : {std::optional<float>(), std::optional<float>(10.0f),
                                               std::optional<float>(0.5f)}) {
              tk::bench::PerChannelCastCase c{m, h, b, TK_BF16, round, transposed};
              c.swiglu = true;
              c.clamp = clamp;
              tally.check(tk::bench::checkPerChannelCast(session, ctx, c, false, &x, &deviceExp),
                          tk::bench::describe(c));
            }
    }
  tally.report("swiglu_forward_and_per_channel_cast_and_transpose", *session);
  tk_context_destroy(ctx);
}

// The oracle itself: nvcc's expf differs from the C library's for part of the
// bf16 arguments (quant.md 4.16 measured ~30% over random inputs), which is
// why the CPU reference cannot check the GPU. A table equal to the C library
// everywhere would mean the oracle is not what it claims.
TEST_F(PerChannelCastGpu, ExpfOracleIsTheDeviceFunction) {
  TK_SKIP_WITHOUT_EXPF_ORACLE();
  std::vector<float> args = tk::bench::bf16SwigluExpArguments();
  tk::bench::ExpTable deviceExp = tk::bench::deviceExpTable(*session, args);
  int differ = 0, finite = 0;
  for (float a : args)
    if (std::isfinite(a) && std::fabs(a) < 80.0f) {
      ++finite;
      float d = deviceExp(a), h = tk::bench::hostExpf(a);
      differ += d != h;
      EXPECT_LE(std::fabs(d - h), 4e-7f * std::fabs(h)) << a; // within a few ulp
    }
  std::printf("[ expf oracle ] %d of %d bf16 arguments differ from the C library's expf\n", differ, finite);
  EXPECT_GT(differ, 0);
}

} // namespace
