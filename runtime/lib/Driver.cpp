//===- Driver.cpp - dlopen("libcuda.so.1") --------------------------------===//
#include "tk/runtime/Driver.h"

#include <cstddef>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace tk::runtime {

// cuda.h's layouts, which cuLaunchKernelEx reads.
static_assert(sizeof(LaunchAttribute) == 72 && offsetof(LaunchAttribute, value) == 8);
static_assert(offsetof(LaunchConfig, hStream) == 32 && offsetof(LaunchConfig, attrs) == 40 &&
              offsetof(LaunchConfig, numAttrs) == 48 && sizeof(LaunchConfig) == 56);

namespace {
struct Loaded {
  Driver driver{};
  bool ok = false;
  std::string error;
};

template <typename F> bool bind(void *lib, F &slot, const char *name, std::string &error) {
  void *sym = dlsym(lib, name);
  if (!sym) {
    error = std::string("libcuda.so.1 has no symbol ") + name;
    return false;
  }
  slot = reinterpret_cast<F>(sym);
  return true;
}

Loaded load() {
  Loaded l;
  const char *override = std::getenv("TK_LIBCUDA");
  const char *path = override ? override : "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    l.error = std::string("the CUDA driver (") + path + ") could not be loaded: " + (why ? why : "unknown");
    return l;
  }
  Driver &d = l.driver;
  bool ok =
      bind(lib, d.cuInit, "cuInit", l.error) && bind(lib, d.cuDriverGetVersion, "cuDriverGetVersion", l.error) &&
      bind(lib, d.cuDeviceGetCount, "cuDeviceGetCount", l.error) && bind(lib, d.cuDeviceGet, "cuDeviceGet", l.error) &&
      bind(lib, d.cuDeviceGetName, "cuDeviceGetName", l.error) &&
      bind(lib, d.cuDeviceGetAttribute, "cuDeviceGetAttribute", l.error) &&
      bind(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", l.error) &&
      bind(lib, d.cuCtxGetCurrent, "cuCtxGetCurrent", l.error) &&
      bind(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent", l.error) &&
      bind(lib, d.cuCtxGetDevice, "cuCtxGetDevice", l.error) &&
      bind(lib, d.cuCtxSynchronize, "cuCtxSynchronize", l.error) &&
      bind(lib, d.cuModuleLoadDataEx, "cuModuleLoadDataEx", l.error) &&
      bind(lib, d.cuModuleLoadData, "cuModuleLoadData", l.error) &&
      bind(lib, d.cuModuleGetFunction, "cuModuleGetFunction", l.error) &&
      bind(lib, d.cuModuleUnload, "cuModuleUnload", l.error) &&
      bind(lib, d.cuFuncGetAttribute, "cuFuncGetAttribute", l.error) &&
      bind(lib, d.cuFuncSetAttribute, "cuFuncSetAttribute", l.error) &&
      bind(lib, d.cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
           l.error) &&
      bind(lib, d.cuLaunchKernel, "cuLaunchKernel", l.error) && bind(lib, d.cuMemAlloc, "cuMemAlloc_v2", l.error) &&
      bind(lib, d.cuMemFree, "cuMemFree_v2", l.error) && bind(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2", l.error) &&
      bind(lib, d.cuMemcpyDtoH, "cuMemcpyDtoH_v2", l.error) &&
      bind(lib, d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", l.error) &&
      bind(lib, d.cuMemAllocHost, "cuMemAllocHost_v2", l.error) &&
      bind(lib, d.cuMemFreeHost, "cuMemFreeHost", l.error) &&
      bind(lib, d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", l.error) &&
      bind(lib, d.cuMemsetD8, "cuMemsetD8_v2", l.error) && bind(lib, d.cuMemsetD32Async, "cuMemsetD32Async", l.error) &&
      bind(lib, d.cuStreamSynchronize, "cuStreamSynchronize", l.error) &&
      bind(lib, d.cuStreamIsCapturing, "cuStreamIsCapturing", l.error) &&
      bind(lib, d.cuEventCreate, "cuEventCreate", l.error) && bind(lib, d.cuEventRecord, "cuEventRecord", l.error) &&
      bind(lib, d.cuEventSynchronize, "cuEventSynchronize", l.error) &&
      bind(lib, d.cuStreamWaitEvent, "cuStreamWaitEvent", l.error) &&
      bind(lib, d.cuEventElapsedTime, "cuEventElapsedTime", l.error) &&
      bind(lib, d.cuEventDestroy, "cuEventDestroy_v2", l.error) &&
      bind(lib, d.cuGetErrorString, "cuGetErrorString", l.error);
  if (!ok)
    return l;
  d.cuLaunchKernelEx = reinterpret_cast<decltype(d.cuLaunchKernelEx)>(dlsym(lib, "cuLaunchKernelEx"));
  CUresult r = d.cuInit(0);
  if (r != 0) {
    l.error = d.describe("cuInit", r) + " (is there a GPU and a working driver?)";
    return l;
  }
  l.ok = true;
  return l;
}
} // namespace

const Driver *Driver::get(std::string &error) {
  static Loaded loaded = load();
  if (!loaded.ok) {
    error = loaded.error;
    return nullptr;
  }
  return &loaded.driver;
}

std::string Driver::describe(const char *call, CUresult r) const {
  const char *msg = nullptr;
  if (cuGetErrorString)
    cuGetErrorString(r, &msg);
  return std::string(call) + " failed: " + (msg ? msg : "unknown error") + " (" + std::to_string(r) + ")";
}

} // namespace tk::runtime
