// Loops and pipelines that carry tiles (KernelBuilder::loop, ::pipeline) on
// the GPU: each thread's slots carried in registers over a dynamic number of
// iterations (none included: 128 columns), the pipeline's chunks through 2
// or 3 versions of a shared buffer. Skips visibly without a device.
#include "tests/kernels/carried_loop_kernel.h"
#include "tests/kernels/gpu_suite.h"

namespace {

class CarriedLoopGpu : public GpuSuite<CarriedLoopGpu> {};

TEST_F(CarriedLoopGpu, SumsExact) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int passed = 0;
  for (int64_t stages : {0, 2, 3})
    for (auto [m, n] : {std::pair<int64_t, int64_t>{8, 1024}, {4100, 7168}, {4, 128}}) {
      std::string error;
      int64_t wrong = tk::test_kernels::checkCarriedSums(ctx, tk::checks::Placement{session}, m, n, error, {stages});
      EXPECT_EQ(wrong, 0) << "stages " << stages << ", " << m << " x " << n << ": " << error;
      passed += wrong == 0;
    }
  std::printf("[ carried loop ] %d of 9 cases exact on %s (loop; pipelines of 2 and 3 stages)\n", passed,
              session->device().name.c_str());
  tk_context_destroy(ctx);
}

} // namespace
