// The DSL's line ops (tile.scan, tile.count_equal) on the GPU against C++
// (tests/kernels/line_ops_kernel.h). Skips visibly without a device.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/line_ops_kernel.h"

namespace {

class LineOpsGpu : public GpuSuite<LineOpsGpu> {};

TEST_F(LineOpsGpu, MatchC) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::string error;
  int64_t wrong = tk::test_kernels::checkLineOps(ctx, tk::checks::Placement{session}, 4096, error);
  EXPECT_EQ(wrong, 0) << error;
  std::printf("[ line ops ] %s: %lld of %lld elements wrong\n", session->device().name.c_str(), (long long)wrong,
              (long long)(4096 * tk::test_kernels::kLineCols * tk::test_kernels::kLineOps));
  tk_context_destroy(ctx);
}

} // namespace
