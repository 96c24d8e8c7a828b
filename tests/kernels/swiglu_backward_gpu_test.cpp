// swiglu_backward_and_per_token_cast (quant.md 4.18) on a GPU: bit-exact
// against the reference with CUDA's expf from the nvcc-compiled oracle,
// weight_grad within 1e-4. Skips visibly without a device.
#include "bench/expf_oracle.h"
#include "bench/swiglu_backward_check.h"
#include "bench/swiglu_check.h"
#include "tests/kernels/gpu_suite.h"

#include <gtest/gtest.h>

namespace {

class SwigluBackwardGpu : public GpuSuite<SwigluBackwardGpu> {};

// The spec's H list x g in {32, 128} x round_sf x clamp {none, 10, 0.5}; the
// MoE mappings (4001 tokens, alignment g) cycle through top-k {2, 6, 8, 9}
// and (experts, ranks) {(72, 8), (256, 8), (256, 64)}.
TEST_F(SwigluBackwardGpu, MoeGridIsBitExact) {
  TK_SKIP_WITHOUT_EXPF_ORACLE();
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  CaseTally tally;
  int i = 0;
  for (int64_t h : {2048, 2560, 3072, 4096, 6144, 7168})
    for (int64_t g : {32, 128})
      for (bool round : {false, true})
        for (std::optional<float> clamp :
             {std::optional<float>(), std::optional<float>(10.0f), std::optional<float>(0.5f)}) {
          tk::bench::SwigluBackwardCase c{h, g, round, clamp};
          tk::bench::MoeShape moe = tk::bench::specMoeShape(i);
          c.topk = moe.topk, c.totalExperts = moe.totalExperts, c.localExperts = moe.localExperts;
          c.seed = 2000 + i++;
          tally.check(tk::bench::checkSwigluBackward(session, ctx, c, false), tk::bench::describe(c));
        }
  tally.report("swiglu_backward_and_per_token_cast", *session);
  tk_context_destroy(ctx);
}

} // namespace
