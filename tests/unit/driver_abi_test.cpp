//===- driver_abi_test.cpp - runtime/Driver.h against the toolkit's cuda.h ===//
//
// tk loads libcuda at run time and declares the few types and constants it
// passes to it (Driver.h) instead of including cuda.h. Where the toolkit's
// header is present (tests/CMakeLists.txt finds it), this checks them against
// it: a wrong offset or enum value would go to the driver unnoticed.
//===----------------------------------------------------------------------===//
#include "tk/runtime/Driver.h"

#include <cuda.h>
#include <gtest/gtest.h>

#include <cstddef>

namespace {

TEST(DriverAbi, ConstantsMatchCudaH) {
  EXPECT_EQ(tk::runtime::kAttrMaxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  EXPECT_EQ(tk::runtime::kAttrMaxSharedPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  EXPECT_EQ(tk::runtime::kAttrClockRateKHz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  EXPECT_EQ(tk::runtime::kAttrSmCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  EXPECT_EQ(tk::runtime::kAttrMemoryClockKHz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  EXPECT_EQ(tk::runtime::kAttrL2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  EXPECT_EQ(tk::runtime::kAttrCcMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  EXPECT_EQ(tk::runtime::kAttrCcMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  EXPECT_EQ(tk::runtime::kAttrMaxSharedPerBlockOptin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  EXPECT_EQ(tk::runtime::kEventDisableTiming, CU_EVENT_DISABLE_TIMING);
  EXPECT_EQ(tk::runtime::kStreamCaptureStatusNone, CU_STREAM_CAPTURE_STATUS_NONE);
  EXPECT_EQ(tk::runtime::kFuncAttrNumRegs, CU_FUNC_ATTRIBUTE_NUM_REGS);
  EXPECT_EQ(tk::runtime::kFuncAttrLocalBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  EXPECT_EQ(tk::runtime::kFuncAttrSharedBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  EXPECT_EQ(tk::runtime::kFuncAttrMaxDynamicSharedBytes, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  EXPECT_EQ(tk::runtime::kJitErrorLogBuffer, CU_JIT_ERROR_LOG_BUFFER);
  EXPECT_EQ(tk::runtime::kJitErrorLogBufferSize, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
  EXPECT_EQ(sizeof(tk::runtime::CUdeviceptr), sizeof(CUdeviceptr));
}

} // namespace
