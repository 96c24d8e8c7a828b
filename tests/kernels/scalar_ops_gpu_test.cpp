// The DSL's integer and comparison scalar ops on the GPU against C++
// (tests/kernels/scalar_ops_kernel.h). Skips visibly without a device.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/scalar_ops_kernel.h"

namespace {

class ScalarOpsGpu : public GpuSuite<ScalarOpsGpu> {};

TEST_F(ScalarOpsGpu, MatchC) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::string error;
  int64_t wrong = tk::test_kernels::checkScalarOps(ctx, tk::checks::Placement{session}, 4096, error);
  EXPECT_EQ(wrong, 0) << error;
  std::printf("[ scalar ops ] %s: %lld of %lld elements wrong\n", session->device().name.c_str(), (long long)wrong,
              (long long)(4096 * 128 * tk::test_kernels::kScalarOps));
  tk_context_destroy(ctx);
}

} // namespace
