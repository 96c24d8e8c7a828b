//===- Driver.h - the CUDA Driver API, loaded at run time -----------------===//
//
// libcuda.so.1 is opened with dlopen on first use, so tk builds, links and
// runs its CPU tests where no driver is installed. Only the handful of types
// and entry points tk uses are declared here.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tk::runtime {

using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUdeviceptr = unsigned long long;

/// cuLaunchKernelEx's attribute (CUlaunchAttribute: an id, padding to 8
/// bytes, a 64-byte value) and configuration (CUlaunchConfig), as cuda.h
/// lays them out.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
  } value;
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
/// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION.
inline constexpr int kLaunchAttrProgrammaticStreamSerialization = 6;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetDevice)(CUdevice *);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);
  /// Null where the driver predates it (CUDA 12.0): launches then take cuLaunchKernel.
  CUresult (*cuLaunchKernelEx)(const LaunchConfig *, CUfunction, void **, void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  /// Page-locked host memory: device-to-host copies into it are plain DMA.
  CUresult (*cuMemAllocHost)(void **, size_t);
  CUresult (*cuMemFreeHost)(void *);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamIsCapturing)(CUstream, int *);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorString)(CUresult, const char **);

  /// The loaded driver, or null with `error` saying why (no library, no symbol,
  /// cuInit failed). Loads once per process.
  static const Driver *get(std::string &error);
  /// "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (1)".
  std::string describe(const char *call, CUresult r) const;
};

// Device attributes and JIT options tk reads (values of the CUDA enums).
enum : int {
  kAttrMaxThreadsPerBlock = 1,
  kAttrMaxSharedPerBlock = 8,
  kAttrClockRateKHz = 13,
  kAttrSmCount = 16,
  kAttrMemoryClockKHz = 36,
  kAttrL2Bytes = 38,
  kAttrCcMajor = 75,
  kAttrCcMinor = 76,
  kAttrMaxSharedPerBlockOptin = 97,
  kEventDisableTiming = 2,
  kStreamCaptureStatusNone = 0,
  kFuncAttrNumRegs = 4,
  kFuncAttrLocalBytes = 3,
  kFuncAttrSharedBytes = 1,
  kFuncAttrMaxDynamicSharedBytes = 8,
  kJitErrorLogBuffer = 5,
  kJitErrorLogBufferSize = 6,
};

} // namespace tk::runtime
