// The per-block casts on a GPU over the spec's grid (quant.md 4.6-4.8),
// bit-exact against the reference. Skips visibly without a device.
#include "bench/per_block_cast_check.h"
#include "tests/kernels/gpu_suite.h"

#include <gtest/gtest.h>

namespace {

class PerBlockCastGpu : public GpuSuite<PerBlockCastGpu> {};

TEST_F(PerBlockCastGpu, SpecGridIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  CaseTally tally;
  // M x K x {bf16, fp32} x the spec's flags (round) and (col, round, packed
  // UE8M0) x blocks (128, 128), (32, 32) x {e4m3, e2m1}; each case checks the
  // cast, sf_only and precomputed_sf. (An earlier grid, e4m3 with (round) and
  // (col, round) only, was 112 of 112 bit-exact on the H200.)
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (uint32_t flags : {(uint32_t)TK_ROUND_SF, (uint32_t)(TK_ROUND_SF | TK_SF_COL_MAJOR | TK_PACKED_UE8M0)})
          for (int64_t b : {128, 32})
            for (tk_format fmt : {TK_FORMAT_E4M3, TK_FORMAT_E2M1}) {
              tk::bench::PerBlockCastCase c{m, k, b, b, in, flags, (uint64_t)(m * 7 + k), fmt};
              tk::bench::CheckResult r = tk::bench::checkPerBlockCast(session, ctx, c, false);
              tally.check(r, tk::bench::describe(c));
            }
  tally.report("per_block_cast", *session);
  tk_context_destroy(ctx);
}

} // namespace
