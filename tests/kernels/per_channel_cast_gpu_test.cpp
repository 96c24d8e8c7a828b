// The per-channel casts on a GPU over the spec's grids (quant.md 4.13 and
// 4.15), bit-exact against the reference. Skips visibly without a device.
#include "bench/per_channel_cast_check.h"
#include "tests/kernels/gpu_suite.h"

#include <gtest/gtest.h>

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
  tally.report("per_channel_cast", *session);
  tk_context_destroy(ctx);
}

} // namespace
