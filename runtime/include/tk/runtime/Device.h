//===- Device.h - the CUDA device a context runs on -----------------------===//
#pragma once

#include "tk/runtime/Driver.h"
#include "tk/runtime/Status.h"

#include <string>

namespace tk::runtime {

struct DeviceInfo {
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int maxSharedPerBlockOptin = 0;
  int l2Bytes = 0;
  int clockKHz = 0, memoryClockKHz = 0;
  int driverVersion = 0; ///< the CUDA API version (13000), not the driver's build
};

/// Binds the calling thread to a CUDA context (the current one, else device
/// 0's primary context) and reads its properties. Errors: TK_ERROR_NO_DRIVER,
/// TK_ERROR_NO_DEVICE.
Status acquireDevice(const Driver *&driver, DeviceInfo &info);

/// True when a driver and at least one device exist; `why` says otherwise.
bool cudaDeviceAvailable(std::string &why);

} // namespace tk::runtime
