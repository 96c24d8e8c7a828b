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
  int passed = 0, total = 0;
  auto run = [&](const tk::bench::PerChannelCastCase &c) {
    tk::bench::CheckResult r = tk::bench::checkPerChannelCast(session, ctx, c, false);
    EXPECT_EQ(r.status, TK_SUCCESS) << tk::bench::describe(c) << ": " << r.error;
    EXPECT_EQ(r.outMismatches, 0) << tk::bench::describe(c);
    EXPECT_EQ(r.sfMismatches, 0) << tk::bench::describe(c);
    passed += r.status == TK_SUCCESS && r.outMismatches == 0 && r.sfMismatches == 0;
    ++total;
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
  std::printf("[ per_channel_cast ] %d of %d cases bit-exact on %s\n", passed, total,
              session->device().name.c_str());
  tk_context_destroy(ctx);
}

} // namespace
