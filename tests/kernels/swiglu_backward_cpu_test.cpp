// swiglu_backward_and_per_token_cast (quant.md 4.18) on the CPU path through
// the C API with host tensors: out, x_grad, x_grad_fp8 and x_grad_sf bit-exact
// against the C++ reference (both with the C library's expf), weight_grad
// within tolerance and zero on unrouted slots.
#include "checks/swiglu_backward_check.h"

#include "tests/kernels/schedule_context.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace {

// The schedule's chunk, threads and pipeline change how blocks split the
// work, results unchanged; a schedule that does not fit is an error through
// the C API, not a silent default.
TEST(Cpu_swiglu_backward_and_per_token_cast, SchedulesKeepResultsAndRejectBadValues) {
  auto check = [](tk_context ctx, int64_t g, uint64_t seed) {
    tk::checks::SwigluBackwardCase c{512, g, true, 0.5f};
    c.tokens = 40, c.topk = 3, c.totalExperts = 8, c.localExperts = 3, c.seed = seed;
    return tk::checks::checkSwigluBackward(nullptr, ctx, c, false);
  };
  const std::string op = "swiglu_backward_and_per_token_cast:";
  for (const char *tile : {"cols=128,threads=32", "cols=256,threads=64", "cols=512,threads=256"}) {
    tk::test::ScheduledContext ctx(op + tile);
    tk::checks::CheckResult r = check(ctx, 32, 3);
    EXPECT_EQ(r.status, TK_SUCCESS) << tile << ": " << r.error;
    EXPECT_EQ(r.outMismatches + r.sfMismatches + r.countMismatches, 0) << tile;
  }
  // A chunk not dividing H = 512; one smaller than g = 128.
  for (const char *bad : {"cols=384", "cols=64"}) {
    tk::test::ScheduledContext ctx(op + bad);
    tk::checks::CheckResult r = check(ctx, 128, 4);
    EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT) << bad;
    EXPECT_NE(r.error.find("TK_SCHEDULE: swiglu_backward_and_per_token_cast: "), std::string::npos) << r.error;
  }
  // A pipeline: blocks walk several rows (3 of 40 rows: a partial last
  // group) with their inputs staged in shared memory.
  for (const char *pipeline : {"stages=2,rows=4", "stages=3,rows=3", "stages=0"}) {
    tk::test::ScheduledContext ctx(op + pipeline);
    tk::checks::CheckResult r = check(ctx, 128, 5);
    EXPECT_EQ(r.status, TK_SUCCESS) << pipeline << ": " << r.error;
    EXPECT_EQ(r.outMismatches + r.sfMismatches + r.countMismatches, 0) << pipeline;
  }
  for (const char *bad : {"threads=96", "stages=9", "rows=0", "cols=512x64"}) {
    setenv("TK_SCHEDULE", (op + bad).c_str(), 1);
    tk_context ctx = nullptr;
    EXPECT_EQ(tk_context_create(&ctx), TK_ERROR_INVALID_ARGUMENT) << bad;
    unsetenv("TK_SCHEDULE");
  }
}

// No rows: every weight_grad slot is zero (the reference would leave it
// uninitialised, quant.md 4.18), whatever token_topk_to_pos says.
TEST(Cpu_swiglu_backward_and_per_token_cast, NoRowsZeroesEveryWeightGradSlot) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  const int64_t h = 256, t = 5, k = 2;
  std::vector<float> weight(t * k, 0.5f), weightGrad(t * k, 7.0f);
  std::vector<int32_t> ttp = {0, -1, 3, 1, -1, 2, 0, 0, 9, -1};
  auto host = [](void *data, tk_dtype dtype, std::vector<int64_t> shape) {
    tk_tensor v{};
    v.data = data, v.dtype = dtype, v.ndim = (int32_t)shape.size(), v.device = TK_DEVICE_CPU;
    int64_t stride = 1;
    for (int i = v.ndim - 1; i >= 0; --i)
      v.shape[i] = shape[i], v.strides[i] = stride, stride *= shape[i];
    return v;
  };
  char none = 0;
  tk_tensor x = host(&none, TK_F8_E4M3, {0, 2 * h}), xs = host(&none, TK_F32, {0, 2 * h / 128});
  tk_tensor go = host(&none, TK_BF16, {0, h}), topk = host(&none, TK_I32, {0});
  tk_tensor out = host(&none, TK_BF16, {0, h}), fp8 = host(&none, TK_F8_E4M3, {0, 2 * h});
  tk_tensor sf = host(&none, TK_F32, {0, 2 * h / 128}), grad = host(&none, TK_BF16, {0, 2 * h});
  tk_tensor w = host(weight.data(), TK_F32, {t, k}), ttpT = host(ttp.data(), TK_I32, {t, k});
  tk_tensor wg = host(weightGrad.data(), TK_F32, {t, k});
  ASSERT_EQ(tk_swiglu_backward_and_per_token_cast(ctx, &x, &xs, &go, &w, &topk, &ttpT, 128, 0, nullptr, &out, &fp8,
                                                  &sf, &grad, &wg, nullptr),
            TK_SUCCESS)
      << tk_last_error();
  for (int64_t s = 0; s < t * k; ++s)
    EXPECT_EQ(weightGrad[s], 0.0f) << "slot " << s;
  tk_context_destroy(ctx);
}

} // namespace
