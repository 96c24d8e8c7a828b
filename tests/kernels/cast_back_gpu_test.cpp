// cast_back on a GPU over the spec's grids (quant.md 4.10), bit-exact against
// the reference. Skips visibly without a device.
#include "bench/cast_back_check.h"
#include "tests/kernels/gpu_suite.h"

#include <gtest/gtest.h>

namespace {

class CastBackGpu : public GpuSuite<CastBackGpu> {};

TEST_F(CastBackGpu, SpecGridsAreBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  CaseTally tally;
  auto run = [&](const tk::bench::CastBackCase &c) {
    tk::bench::CheckResult r = tk::bench::checkCastBack(session, ctx, c, false);
    tally.check(r, tk::bench::describe(c));
  };
  // Per-token grid: g in {128, K}, fp32 scale factors row- and column-major
  // and packed UE8M0 words (the packed cases have not run on a GPU yet), both
  // output dtypes.
  // Blocked grid: (128, 1) and (128, 128) blocks, plain and power-of-two
  // scale factors (round_sf), row-major.
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (tk_dtype out : {TK_F32, TK_BF16}) {
        for (int64_t g : {(int64_t)128, k}) {
          for (bool col : {false, true})
            run({m, k, 1, g, out, col, col});
          run({m, k, 1, g, out, true, true, /*packedSf=*/true}); // the spec's (T, T, T) inputs
          run({m, k, 1, g, out, false, true, false, TK_FORMAT_E2M1}); // FP4 input
        }
        // E5M6 input (quant.md 4.12): g = K, flags (F, T, F) and (T, T, T).
        run({m, k, 1, k, out, false, true, false, TK_FORMAT_E5M6});
        run({m, k, 1, k, out, true, true, true, TK_FORMAT_E5M6});
        for (int64_t g : {1, 128})
          for (bool pow2 : {false, true})
            run({m, k, 128, g, out, false, pow2});
      }
  tally.report("cast_back", *session);
  tk_context_destroy(ctx);
}

} // namespace
