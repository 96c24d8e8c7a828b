// Every shipped kernel has CPU tests (a test suite named Cpu_<kernel> in this
// binary), so CI's coverage of kernel semantics cannot silently drop.
#include "kernels/registry.h"

#include <gtest/gtest.h>
#include <set>

namespace {

TEST(CpuCoverage, EveryShippedKernelHasCpuTests) {
  std::set<std::string> suites;
  const ::testing::UnitTest &unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i)
    suites.insert(unit.GetTestSuite(i)->name());
  ASSERT_FALSE(tk::kernels::shippedKernels().empty());
  for (const auto &k : tk::kernels::shippedKernels())
    EXPECT_TRUE(suites.count("Cpu_" + k.name)) << "shipped kernel " << k.name << " has no CPU test suite Cpu_"
                                                << k.name;
}

} // namespace
