// The DSL's f32 math (sqrt, log, log1p) on the GPU gives the CPU path's
// bits, softplus within a few ulp of them (tests/kernels/math_ops_kernel.h). Skips visibly without a device.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/math_ops_kernel.h"

namespace {

class MathOpsGpu : public GpuSuite<MathOpsGpu> {};

TEST_F(MathOpsGpu, SameBitsAsTheCpuPath) {
  using namespace tk::test_kernels;
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  const int64_t m = 4096;
  const std::vector<float> x = mathOpInputs(m * 128);
  std::string error;
  const std::vector<float> gpu = runMathOps(ctx, tk::checks::Placement{session}, x, m, error);
  ASSERT_FALSE(gpu.empty()) << error;
  const std::vector<float> cpu = runMathOps(ctx, tk::checks::Placement{}, x, m, error);
  ASSERT_FALSE(cpu.empty()) << error;
  // sqrt, log and log1p: the same bits; softplus goes through exp, CUDA's
  // expf on the GPU and the C library's on the CPU (up to 2 ulp apart).
  int64_t differ = 0, softplusUlps = 0;
  for (size_t i = 0; i < gpu.size(); ++i) {
    const int op = (int)(i % (128 * kMathOps)) / 128;
    const int64_t d = ulpDistance(gpu[i], cpu[i]);
    if (op == 3)
      softplusUlps = std::max(softplusUlps, d);
    else
      differ += d != 0;
  }
  EXPECT_EQ(differ, 0);
  EXPECT_LE(softplusUlps, 4);
  std::printf("[ math ops ] softplus: GPU and CPU path at most %lld ulp apart\n", (long long)softplusUlps);
  std::printf("[ math ops ] %s: %lld of %lld results differ from the CPU path's\n", session->device().name.c_str(),
              (long long)differ, (long long)gpu.size());
  tk_context_destroy(ctx);
}

} // namespace
