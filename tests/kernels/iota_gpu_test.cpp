// tile.iota (docs/adding_an_op.md's example op) on the GPU: every element's
// coordinates, through the C API's context. Skips visibly without a device.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/places_kernel.h"

namespace {

class IotaGpu : public GpuSuite<IotaGpu> {};

TEST_F(IotaGpu, CoordinatesOfEveryElement) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int passed = 0;
  for (int64_t m : {4, 12, 4096}) {
    std::string error;
    int64_t wrong = tk::test_kernels::checkPlaces(ctx, tk::checks::Placement{session}, m, error);
    EXPECT_EQ(wrong, 0) << m << " rows: " << error;
    passed += wrong == 0;
  }
  std::printf("[ tile.iota ] %d of 3 cases bit-exact on %s\n", passed, session->device().name.c_str());
  tk_context_destroy(ctx);
}

} // namespace
