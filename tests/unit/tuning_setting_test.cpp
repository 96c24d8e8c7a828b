// The tuning settings' parser (kernels/common/tuning_setting.h): sizes joined
// by 'x', as many as the form names, or a clear error naming the variable.
#include "kernels/common/tuning_setting.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

using tk::kernels::readSizesSetting;
using tk::kernels::SizesSetting;

TEST(TuningSetting, ReadsSizesJoinedByX) {
  SizesSetting s;
  unsetenv("TK_TEST_SIZES");
  EXPECT_EQ(readSizesSetting("TK_TEST_SIZES", "ROWSxCOLSxTHREADS", s), "");
  EXPECT_TRUE(s.text.empty());
  setenv("TK_TEST_SIZES", "32x128x256", 1);
  EXPECT_EQ(readSizesSetting("TK_TEST_SIZES", "ROWSxCOLSxTHREADS", s), "");
  EXPECT_EQ(s.text, "32x128x256");
  EXPECT_EQ(s.values, (std::vector<int64_t>{32, 128, 256}));
  EXPECT_EQ(s.unusable("TK_TEST_SIZES", "too big"), "TK_TEST_SIZES '32x128x256': too big");
  setenv("TK_TEST_SIZES", "0x0", 1);
  EXPECT_EQ(readSizesSetting("TK_TEST_SIZES", "STAGESxTILES", s), "");
  EXPECT_EQ(s.values, (std::vector<int64_t>{0, 0}));
  for (const char *bad : {"32x128", "32x128x256x4", "32x-1x4", "32xx4", "32x128x", "a", "32 x 4x4", "32x128x256 "}) {
    setenv("TK_TEST_SIZES", bad, 1);
    EXPECT_EQ(readSizesSetting("TK_TEST_SIZES", "ROWSxCOLSxTHREADS", s),
              std::string("TK_TEST_SIZES must be ROWSxCOLSxTHREADS, got '") + bad + "'")
        << bad;
    EXPECT_TRUE(s.text.empty()) << bad;
  }
  unsetenv("TK_TEST_SIZES");
}

TEST(TuningSetting, PowersOfTwoInARange) {
  EXPECT_TRUE(tk::kernels::isPowerOfTwoIn(32, 32, 1024));
  EXPECT_TRUE(tk::kernels::isPowerOfTwoIn(1024, 32, 1024));
  EXPECT_FALSE(tk::kernels::isPowerOfTwoIn(96, 32, 1024));
  EXPECT_FALSE(tk::kernels::isPowerOfTwoIn(16, 32, 1024));
  EXPECT_FALSE(tk::kernels::isPowerOfTwoIn(2048, 32, 1024));
}

} // namespace

namespace {

// A power-of-two setting: unset leaves the value, a power of two in range
// sets it, anything else is an error naming the variable.
TEST(TuningSetting, PowerOfTwoSettings) {
  using tk::kernels::readPowerOfTwoSetting;
  int64_t v = 7;
  unsetenv("TK_TEST_POW2");
  EXPECT_EQ(readPowerOfTwoSetting("TK_TEST_POW2", 4, 16, "rows", v), "");
  EXPECT_EQ(v, 7);
  setenv("TK_TEST_POW2", "8", 1);
  EXPECT_EQ(readPowerOfTwoSetting("TK_TEST_POW2", 4, 16, "rows", v), "");
  EXPECT_EQ(v, 8);
  setenv("TK_TEST_POW2", "12", 1);
  EXPECT_EQ(readPowerOfTwoSetting("TK_TEST_POW2", 4, 16, "rows", v),
            "TK_TEST_POW2 must be a power of two from 4 to 16 rows, got 12");
  setenv("TK_TEST_POW2", "32", 1);
  EXPECT_EQ(readPowerOfTwoSetting("TK_TEST_POW2", 4, 16, "rows", v), "TK_TEST_POW2 must be 4 to 16 rows, got '32'");
  EXPECT_EQ(v, 8);
  unsetenv("TK_TEST_POW2");
}

} // namespace
