// per_block_cast_lossless (quant.md 4.9) on a GPU over the spec's grid: out
// and out_sf bit-exact against the reference, and dec(out) * sf_out ==
// dec(x) * sf_in for every element. Skips visibly without a device.
#include "bench/lossless_check.h"
#include "tests/kernels/gpu_suite.h"

#include <gtest/gtest.h>

#include <limits>

namespace {

class PerBlockLosslessGpu : public GpuSuite<PerBlockLosslessGpu> {};

// M x K x input flags (F,T,F), (T,T,T) x output flags x out block in
// {(1,128), (32,32), (128,128)}, in block (1,32); plus the refusal of an
// input block out of exponent range.
TEST_F(PerBlockLosslessGpu, SpecGridIsExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  CaseTally tally;
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (bool inPacked : {false, true})
        for (bool outPacked : {false, true})
          for (auto [bOut, gOut] : std::vector<std::pair<int64_t, int64_t>>{{1, 128}, {32, 32}, {128, 128}}) {
            tk::bench::LosslessCase c{m, k, 1, 32, bOut, gOut, inPacked, outPacked, (uint64_t)(m + k + bOut)};
            tally.check(tk::bench::checkPerBlockLossless(session, ctx, c, false), tk::bench::describe(c));
          }
  tk::bench::LosslessCase bad{4001, 7168, 1, 32, 1, 128, true, true, 5, /*outOfRange=*/true};
  tally.check(tk::bench::checkPerBlockLossless(session, ctx, bad, false), tk::bench::describe(bad));
  for (float scale : {3.0f, -2.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    tk::bench::LosslessCase notPowerOfTwo{4001, 7168, 1, 32, 128, 128, false, true, 6};
    notPowerOfTwo.badScale = scale;
    tally.check(tk::bench::checkPerBlockLossless(session, ctx, notPowerOfTwo, false), tk::bench::describe(notPowerOfTwo));
  }
  tally.report("per_block_cast_lossless", *session);
  tk_context_destroy(ctx);
}

} // namespace
