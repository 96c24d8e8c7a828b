// The CPU path on a CPU without the host's extensions: kernels JIT-compiled
// for LLVM's "x86-64" baseline (no AVX, no native bf16 conversion) run
// bit-exact. bf16 conversions are lowered to integer arithmetic, so the JIT
// code needs no runtime helper (a fptrunc to bf16 would call __truncsfbf2,
// which GCC 12's runtime lacks: "Symbols not found").
#include "checks/cast_back_check.h"
#include "checks/per_token_cast_check.h"
#include "checks/swiglu_check.h"
#include "tk/runtime/Context.h"

#include <gtest/gtest.h>

namespace {

TEST(GenericCpu, Bf16KernelsRunOnTheBaselineTarget) {
#if defined(__x86_64__)
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  ctx->cpuCache.setTargetCpu("x86-64");
  using namespace tk::checks;
  PerTokenCastCase token{37, 2048, 128, TK_BF16, TK_ROUND_SF}; // bf16 -> f32 in
  CheckResult r = checkPerTokenCast(nullptr, ctx, token, makeInput(token), false);
  EXPECT_TRUE(r.exact()) << describe(token) << ": " << r.verdict();
  CastBackCase back{37, 2048, 1, 128, TK_BF16}; // f32 -> bf16 out
  r = checkCastBack(nullptr, ctx, back, false);
  EXPECT_TRUE(r.exact()) << describe(back) << ": " << r.verdict();
  SwigluCastCase swiglu{1024, 128}; // bf16 in, bf16 rounding of the activation
  swiglu.plainRows = 37, swiglu.weights = true;
  r = checkSwigluPerTokenCast(nullptr, ctx, swiglu, false);
  EXPECT_TRUE(r.exact()) << describe(swiglu) << ": " << r.verdict();
  EXPECT_GE(ctx->cpuCache.size(), 3u); // compiled here, for the baseline
  tk_context_destroy(ctx);
#else
  GTEST_SKIP() << "the baseline target named here is x86-64's";
#endif
}

} // namespace
