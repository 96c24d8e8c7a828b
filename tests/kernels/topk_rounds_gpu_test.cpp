// topkColumns' two forms on the GPU against a host sort
// (tests/kernels/topk_rounds_kernel.h): the packed form's i64 keys cross
// lanes as 32-bit halves and warps through shared memory. Skips visibly
// without a device.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/topk_rounds_kernel.h"

namespace {

class TopkRoundsGpu : public GpuSuite<TopkRoundsGpu> {};

TEST_F(TopkRoundsGpu, BothFormsFollowTheOrder) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::string error;
  int passed = 0;
  for (int64_t rows : {6, 4099}) {
    error.clear();
    int64_t wrong = tk::test_kernels::checkTopkRounds<tk::dsl::TopkRounds::KeyThenPosition>(
        ctx, tk::checks::Placement{session}, rows, error);
    EXPECT_EQ(wrong, 0) << rows << " rows, two reductions a round: " << error;
    passed += wrong == 0;
    error.clear();
    wrong = tk::test_kernels::checkTopkRounds<tk::dsl::TopkRounds::Packed>(ctx, tk::checks::Placement{session}, rows,
                                                                           error);
    EXPECT_EQ(wrong, 0) << rows << " rows, packed: " << error;
    passed += wrong == 0;
  }
  std::printf("[ topkColumns ] %d of 4 cases exact on %s\n", passed, session->device().name.c_str());
  tk_context_destroy(ctx);
}

} // namespace
