// tests/kernels/padded_groups_kernel.h on the GPU: reduced fragments over padded dimensions, loaded, counted
// (iota) and reduced twice, under a division split over a group's lanes. Skips visibly without a device.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/padded_groups_kernel.h"

namespace {

class PaddedGroupsGpu : public GpuSuite<PaddedGroupsGpu> {};

TEST_F(PaddedGroupsGpu, EveryLaneOfAGroupHoldsItsValues) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int passed = 0, total = 0;
  for (const tk::test_kernels::PaddedGroupsConfig &c : tk::test_kernels::paddedGroupsConfigs())
    for (int64_t m : {77, 4096}) {
      std::string error;
      int64_t wrong = tk::test_kernels::checkPaddedGroups(ctx, tk::checks::Placement{session}, c, m, error);
      EXPECT_EQ(wrong, 0) << c.key() << ", " << m << " matrices: " << error;
      passed += wrong == 0;
      ++total;
    }
  std::printf("[ padded groups ] %d of %d cases exact on %s\n", passed, total, session->device().name.c_str());
  tk_context_destroy(ctx);
}

} // namespace
