// firstNonzero (kernels/common/first_nonzero.h): the first set flag of a
// read-back, across and inside its 1024-flag stretches.
#include "kernels/common/first_nonzero.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using tk::kernels::firstNonzero;

TEST(FirstNonzero, FindsTheFirstSetFlagInAnyStretch) {
  std::vector<float> flags(3000, 0.0f);
  EXPECT_EQ(firstNonzero(flags.data(), 0), -1);
  EXPECT_EQ(firstNonzero(flags.data(), (int64_t)flags.size()), -1);
  for (int64_t at : {0, 5, 1023, 1024, 2047, 2999}) {
    std::vector<float> f(flags);
    f[at] = 1.0f;
    if (at + 7 < (int64_t)f.size())
      f[at + 7] = 1.0f; // a later flag does not hide the first
    EXPECT_EQ(firstNonzero(f.data(), (int64_t)f.size()), at) << at;
  }
  // Only the first n flags count; -0.0f compares equal to zero (as != 0.0f did before).
  flags[2500] = 1.0f;
  EXPECT_EQ(firstNonzero(flags.data(), 2500), -1);
  flags[10] = -0.0f;
  EXPECT_EQ(firstNonzero(flags.data(), 2501), 2500);
}

} // namespace
