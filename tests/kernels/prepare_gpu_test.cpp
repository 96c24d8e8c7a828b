// tk_context_s::prepare on a GPU: the kernels it is given compile and load
// on threads of their own (each making the context's CUDA context current
// first), and the runs that follow find them loaded and compute with them.
// Skips visibly without a device.
#include "tests/kernels/affine_kernel.h"
#include "tests/kernels/gpu_suite.h"
#include "tk/runtime/Context.h"

namespace {

using tk::test::AffineConfig;
using tk::test::buildAffine;

class PrepareGpu : public GpuSuite<PrepareGpu> {};

TEST_F(PrepareGpu, KernelsAreLoadedForTheRunsThatFollow) {
  tk::test::ScheduledContext context("");
  tk_context ctx = context;
  const std::vector<float> ones(8 * 64, 1.0f);
  void *x = session->alloc(ones.size() * 4), *out = session->alloc(ones.size() * 4);
  session->upload(x, ones.data(), ones.size() * 4);
  tk_tensor tx = tk::checks::deviceTensor(x, TK_F32, {8, 64}), tout = tk::checks::deviceTensor(out, TK_F32, {8, 64});
  std::vector<tk::runtime::KernelFactory> kernels;
  for (double factor : {3.0, 5.0, 7.0})
    kernels.push_back(tk::runtime::factoryOf(buildAffine, AffineConfig{factor}));
  ctx->prepare(kernels, {&tx, &tout});
  ASSERT_TRUE(ctx->target.has_value());
  for (const auto &kernel : kernels)
    EXPECT_TRUE(ctx->cache.contains(kernel, *ctx->target, /*loaded=*/true)) << kernel.config;
  EXPECT_EQ(ctx->cache.misses(), 3u);
  for (size_t i = 0; i < kernels.size(); ++i) {
    ASSERT_TRUE(ctx->run(kernels[i], {&tx, &tout}, nullptr).isOk());
    std::vector<float> got(ones.size());
    session->download(got.data(), out, got.size() * 4);
    EXPECT_EQ(got[0], float(3.0 + 2.0 * i + 0.5)) << kernels[i].config;
    EXPECT_EQ(got.back(), got[0]);
  }
  EXPECT_EQ(ctx->cache.misses(), 3u);
  EXPECT_EQ(ctx->cache.hits(), 3u);
}

} // namespace
