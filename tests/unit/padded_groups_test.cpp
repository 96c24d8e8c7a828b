// tests/kernels/padded_groups_kernel.h on the CPU path, and compiled for every GPU target (where the lowering
// splits the division over a group's lanes; tests/kernels/padded_groups_gpu_test.cpp runs it).
#include "tests/kernels/padded_groups_kernel.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

using namespace tk;

namespace {

TEST(PaddedGroups, CompileForEveryTarget) {
  for (const test_kernels::PaddedGroupsConfig &c : test_kernels::paddedGroupsConfigs())
    for (const compiler::Target &target : compiler::supportedTargets()) {
      runtime::CompiledKernel out;
      runtime::Status s = runtime::compileKernel(runtime::factoryOf(test_kernels::buildPaddedGroups, c), target, out);
      EXPECT_TRUE(s.isOk()) << c.key() << " on " << target.name << ": " << s.message();
    }
}

TEST(PaddedGroups, ExactOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (const test_kernels::PaddedGroupsConfig &c : test_kernels::paddedGroupsConfigs()) {
    std::string error;
    EXPECT_EQ(test_kernels::checkPaddedGroups(ctx, checks::Placement{}, c, 77, error), 0) << c.key() << ": " << error;
  }
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

} // namespace
