// swiglu_forward_and_per_token_cast (quant.md 4.16) on a GPU, bit-exact
// against the reference with CUDA's expf from the nvcc-compiled oracle.
// Skips visibly without a device.
#include "bench/swiglu_check.h"
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/schedule_context.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

class SwigluPerTokenCastGpu : public GpuSuite<SwigluPerTokenCastGpu> {};

// The spec's H list x g in {128, H} x flags {(F,T,F), (T,T,T)} (without
// (col, g = H) and (packed, weights)) x routing {none, weights and experts}
// x clamp {none, 10 (counted), 0.5 (counted)}; the MoE mappings cycle through
// top-k {2, 6, 8, 9} and (experts, ranks) {(72, 8), (256, 8), (256, 64)} with
// 4001 tokens and alignment 16.
TEST_F(SwigluPerTokenCastGpu, MoeGridIsBitExact) {
  TK_SKIP_WITHOUT_EXPF_ORACLE();
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::test::ScheduledContext persistent("swiglu_forward_and_per_token_cast:count_blocks=4");
  tk::bench::ExpTable deviceExp = tk::bench::deviceExpTable(*session, tk::bench::bf16SwigluExpArguments());
  CaseTally tally;
  int i = 0, persistentCases = 0;
  for (tk::bench::SwigluCastCase c : tk::bench::swigluCastGrid(
           {1024, 1280, 1536, 2048, 3072, 3584}, {std::nullopt, 10.0f, 0.5f}, /*packedWithWeights=*/false)) {
    tk::bench::MoeShape moe = tk::bench::specMoeShape(i);
    c.topk = moe.topk, c.totalExperts = moe.totalExperts, c.localExperts = moe.localExperts;
    c.seed = 1000 + i++;
    tally.check(tk::bench::checkSwigluPerTokenCast(session, ctx, c, false, &deviceExp), tk::bench::describe(c));
    // The persistent counting schedule (4 blocks per SM, block totals; the
    // default is one tile per block) on a grid sized for 20 fewer SMs: the
    // spec runs each case for num_SMs in {SMs - 20, SMs} (tk_set_num_sms).
    // The device's count comes from `ctx`, which has launched (a context
    // knows its device from its first launch on).
    int32_t sms = 0;
    if (c.count && tk_get_num_sms(ctx, &sms) == TK_SUCCESS && sms > 20) {
      ASSERT_EQ(tk_set_num_sms(persistent, sms - 20), TK_SUCCESS);
      tally.check(tk::bench::checkSwigluPerTokenCast(session, persistent, c, false, &deviceExp),
                  tk::bench::describe(c) + " persistent num_sms=" + std::to_string(sms - 20));
      ++persistentCases;
    }
  }
  EXPECT_GT(persistentCases, 0) << "the persistent counting schedule never ran";
  // fp32 input (its own expf table) and a custom scale clamp.
  tk::bench::SwigluCastCase f32{2048, 128, TK_F32};
  f32.weights = f32.experts = true, f32.clamp = 0.5f, f32.count = true;
  tally.check(tk::bench::checkSwigluPerTokenCast(session, ctx, f32, false, &deviceExp), tk::bench::describe(f32));
  tk::bench::SwigluCastCase sfClamp{2048, 128};
  sfClamp.flags = TK_ROUND_SF, sfClamp.sfClampMin = 0.25f, sfClamp.plainRows = 4096;
  tally.check(tk::bench::checkSwigluPerTokenCast(session, ctx, sfClamp, false, &deviceExp),
              tk::bench::describe(sfClamp));
  tally.report("swiglu_forward_and_per_token_cast", *session);
  tk_context_destroy(ctx);
}

} // namespace
