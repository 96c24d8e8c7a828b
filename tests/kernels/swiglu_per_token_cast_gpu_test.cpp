// swiglu_forward_and_per_token_cast (quant.md 4.16) on a GPU, bit-exact
// against the reference with CUDA's expf from the nvcc-compiled oracle.
// Skips visibly without a device.
#include "bench/swiglu_check.h"
#include "tests/kernels/gpu_suite.h"

#include <gtest/gtest.h>

namespace {

class SwigluPerTokenCastGpu : public GpuSuite<SwigluPerTokenCastGpu> {};

// The spec's H list x g in {128, H} x flags {(F,T,F), (T,T,T)} (without
// (col, g = H) and (packed, weights)) x routing {none, weights and experts}
// x clamp {none, 10 (counted), 0.5 (counted)}; the MoE mappings cycle through
// top-k {2, 6, 8, 9} and (experts, ranks) {(72, 8), (256, 8), (256, 64)} with
// 4001 tokens and alignment 16.
TEST_F(SwigluPerTokenCastGpu, MoeGridIsBitExact) {
  if (!tk::bench::haveExpfOracle())
    GTEST_SKIP() << "skipped: this build has no expf oracle (nvcc was not found at configure time)";
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::bench::ExpTable deviceExp = tk::bench::deviceExpTable(*session, tk::bench::bf16SwigluExpArguments(nullptr));
  CaseTally tally;
  const int64_t topks[] = {2, 6, 8, 9}, experts[][2] = {{72, 9}, {256, 32}, {256, 4}};
  int i = 0;
  for (int64_t h : {1024, 1280, 1536, 2048, 3072, 3584})
    for (int64_t g : {int64_t(128), h})
      for (uint32_t flags : {uint32_t(TK_ROUND_SF), uint32_t(TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0)})
        for (bool routed : {false, true})
          for (std::optional<float> clamp :
               {std::optional<float>(), std::optional<float>(10.0f), std::optional<float>(0.5f)}) {
            if (((flags & TK_SF_COL_MAJOR) && g != 128) || ((flags & TK_PACKED_UE8M0) && routed))
              continue;
            tk::bench::SwigluCastCase c{h, g};
            c.flags = flags;
            c.weights = c.experts = routed;
            c.clamp = clamp;
            c.count = clamp.has_value();
            c.topk = topks[i % 4], c.totalExperts = experts[i % 3][0], c.localExperts = experts[i % 3][1];
            c.seed = 1000 + i++;
            tally.check(tk::bench::checkSwigluPerTokenCast(session, ctx, c, false, &deviceExp),
                        tk::bench::describe(c));
          }
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
