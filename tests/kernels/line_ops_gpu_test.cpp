// The DSL's line ops (tile.scan, tile.count_equal) on the GPU against C++
// (tests/kernels/line_ops_kernel.h). Skips visibly without a device.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/line_ops_kernel.h"

namespace {

class LineOpsGpu : public GpuSuite<LineOpsGpu> {};

TEST_F(LineOpsGpu, MatchC) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  // Through shared memory ([16, 64], 4 values a thread), and a warp per row of 32 (match.any.sync).
  for (const tk::test_kernels::LineShape &shape :
       {tk::test_kernels::LineShape{16, 64, 128, 0}, tk::test_kernels::LineShape{8, 32, 256, 4}}) {
    std::string error;
    int64_t wrong = tk::test_kernels::checkLineOps(ctx, tk::checks::Placement{session}, shape, 4096, error);
    EXPECT_EQ(wrong, 0) << shape.key() << ": " << error;
    std::printf("[ line ops ] %s, %s tiles: %lld of %lld elements wrong\n", session->device().name.c_str(),
                shape.key().c_str(), (long long)wrong, (long long)(4096 * shape.cols * tk::test_kernels::kLineOps));
  }
  tk_context_destroy(ctx);
}

} // namespace
