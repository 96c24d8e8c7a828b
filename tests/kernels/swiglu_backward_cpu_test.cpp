// swiglu_backward_and_per_token_cast (quant.md 4.18) on the CPU path through
// the C API with host tensors: out, x_grad, x_grad_fp8 and x_grad_sf bit-exact
// against the C++ reference (both with the C library's expf), weight_grad
// within tolerance and zero on unrouted slots.
#include "bench/swiglu_backward_check.h"

#include <gtest/gtest.h>

namespace {

// Suite names Cpu_<kernel>: the coverage test looks for them.
TEST(Cpu_swiglu_backward_and_per_token_cast, MoeGridIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int i = 0;
  for (int64_t h : {256, 640})
    for (int64_t g : {32, 128})
      for (bool round : {false, true})
        for (std::optional<float> clamp : {std::optional<float>(), std::optional<float>(0.5f)}) {
          if (h % g)
            continue;
          tk::bench::SwigluBackwardCase c{h, g, round, clamp};
          c.tokens = 50, c.topk = 2 + i % 3, c.totalExperts = 8, c.localExperts = 3, c.seed = 10 + i++;
          tk::bench::CheckResult r = tk::bench::checkSwigluBackward(nullptr, ctx, c, false);
          EXPECT_EQ(r.status, TK_SUCCESS) << tk::bench::describe(c) << ": " << r.error;
          EXPECT_EQ(r.outMismatches, 0) << tk::bench::describe(c);
          EXPECT_EQ(r.sfMismatches, 0) << tk::bench::describe(c);
          EXPECT_EQ(r.countMismatches, 0) << tk::bench::describe(c) << " (weight_grad)";
        }
  tk_context_destroy(ctx);
}

} // namespace
