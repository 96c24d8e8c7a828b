// tk bench records the kernel driver's build (580.159.04), which the CUDA API
// does not report, from /proc/driver/nvidia/version's first line.
#include "bench/driver_version.h"

#include <gtest/gtest.h>

using tk::bench::describeDriver;
using tk::bench::parseDriverVersion;

TEST(DriverVersion, ReadsTheModulesVersionFromTheFirstLine) {
  EXPECT_EQ(parseDriverVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct 30 2025\n"
                               "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "580.159.04");
  EXPECT_EQ(parseDriverVersion("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n"),
            "570.86.15");
  EXPECT_EQ(parseDriverVersion("NVRM version: NVIDIA UNIX aarch64 Kernel Module  550.54  Tue Feb 13 2024"), "550.54");
}

TEST(DriverVersion, NamesNoneWhereTheTextHasNone) {
  EXPECT_EQ(parseDriverVersion(""), "");
  EXPECT_EQ(parseDriverVersion("NVRM version: something else\n"), "");
  // A version on a later line (the compiler's) is not the driver's.
  EXPECT_EQ(parseDriverVersion("NVRM version: unknown\nGCC version: Kernel Module 12.2.0\n"), "");
}

TEST(DriverVersion, DescribesTheBuildBesideTheApi) {
  EXPECT_EQ(describeDriver("580.159.04", 13000), "580.159.04 (CUDA API 13000)");
  EXPECT_EQ(describeDriver("", 13000), "CUDA API 13000");
}
