//===- driver_version.h - the kernel driver's version, for the record ------===//
//
// The CUDA driver API reports its API version (13000), not the driver build
// a benchmark ran on (580.159.04); runs are reproduced by the latter.
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace tk::bench {

/// The version in the text of /proc/driver/nvidia/version ("NVRM version:
/// NVIDIA UNIX x86_64 Kernel Module  580.159.04  ..."); "" if it names none.
std::string parseDriverVersion(const std::string &procText);

/// This machine's NVIDIA kernel driver version; "" where it cannot be read.
std::string kernelDriverVersion();

/// "580.159.04 (CUDA API 13000)", or "CUDA API 13000" without a kernel
/// driver version: how tk bench and tk tune name the driver they ran on.
std::string describeDriver(const std::string &kernelVersion, int apiVersion);

} // namespace tk::bench
