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

using tk::runtime::MemPoolProps;

TEST(DriverAbi, MemPoolPropsMatchesCudaH) {
  EXPECT_EQ(sizeof(MemPoolProps), sizeof(CUmemPoolProps));
  EXPECT_EQ(offsetof(MemPoolProps, allocType), offsetof(CUmemPoolProps, allocType));
  EXPECT_EQ(offsetof(MemPoolProps, handleTypes), offsetof(CUmemPoolProps, handleTypes));
  EXPECT_EQ(offsetof(MemPoolProps, locationType), offsetof(CUmemPoolProps, location) + offsetof(CUmemLocation, type));
  EXPECT_EQ(offsetof(MemPoolProps, locationId), offsetof(CUmemPoolProps, location) + offsetof(CUmemLocation, id));
  EXPECT_EQ(offsetof(MemPoolProps, win32SecurityAttributes), offsetof(CUmemPoolProps, win32SecurityAttributes));
  EXPECT_EQ(offsetof(MemPoolProps, maxSize), offsetof(CUmemPoolProps, maxSize));
  EXPECT_EQ(offsetof(MemPoolProps, usage), offsetof(CUmemPoolProps, usage));
  MemPoolProps defaults;
  EXPECT_EQ(defaults.allocType, CU_MEM_ALLOCATION_TYPE_PINNED);
  EXPECT_EQ(defaults.handleTypes, CU_MEM_HANDLE_TYPE_NONE);
  EXPECT_EQ(defaults.locationType, CU_MEM_LOCATION_TYPE_DEVICE);
}

TEST(DriverAbi, ConstantsMatchCudaH) {
  EXPECT_EQ(tk::runtime::kMemPoolAttrReleaseThreshold, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
  EXPECT_EQ(tk::runtime::kAttrMaxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  EXPECT_EQ(tk::runtime::kAttrMaxSharedPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  EXPECT_EQ(tk::runtime::kAttrClockRateKHz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  EXPECT_EQ(tk::runtime::kAttrSmCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  EXPECT_EQ(tk::runtime::kAttrMemoryClockKHz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  EXPECT_EQ(tk::runtime::kAttrL2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  EXPECT_EQ(tk::runtime::kAttrCcMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  EXPECT_EQ(tk::runtime::kAttrCcMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  EXPECT_EQ(tk::runtime::kAttrMaxSharedPerBlockOptin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  EXPECT_EQ(tk::runtime::kFuncAttrNumRegs, CU_FUNC_ATTRIBUTE_NUM_REGS);
  EXPECT_EQ(tk::runtime::kFuncAttrLocalBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  EXPECT_EQ(tk::runtime::kFuncAttrSharedBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  EXPECT_EQ(tk::runtime::kFuncAttrMaxDynamicSharedBytes, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  EXPECT_EQ(tk::runtime::kJitErrorLogBuffer, CU_JIT_ERROR_LOG_BUFFER);
  EXPECT_EQ(tk::runtime::kJitErrorLogBufferSize, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
  EXPECT_EQ(sizeof(tk::runtime::CUdeviceptr), sizeof(CUdeviceptr));
}

} // namespace
