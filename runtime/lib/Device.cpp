//===- Device.cpp ---------------------------------------------------------===//
#include "tk/runtime/Device.h"

#include <algorithm>

namespace tk::runtime {

bool cudaDeviceAvailable(std::string &why) {
  const Driver *d = Driver::get(why);
  if (!d)
    return false;
  int count = 0;
  CUresult r = d->cuDeviceGetCount(&count);
  if (r != 0) {
    why = d->describe("cuDeviceGetCount", r);
    return false;
  }
  if (count == 0) {
    why = "the CUDA driver reports no device";
    return false;
  }
  return true;
}

Status acquireDevice(const Driver *&driver, DeviceInfo &info) {
  std::string why;
  driver = Driver::get(why);
  if (!driver)
    return {TK_ERROR_NO_DRIVER, why};
  if (!cudaDeviceAvailable(why))
    return {TK_ERROR_NO_DEVICE, why};
  const Driver &d = *driver;
  CUcontext ctx = nullptr;
  d.cuCtxGetCurrent(&ctx);
  CUresult r;
  if (ctx) {
    if ((r = d.cuCtxGetDevice(&info.device)))
      return {TK_ERROR_NO_DEVICE, d.describe("cuCtxGetDevice", r)};
  } else {
    if ((r = d.cuDeviceGet(&info.device, 0)))
      return {TK_ERROR_NO_DEVICE, d.describe("cuDeviceGet", r)};
    if ((r = d.cuDevicePrimaryCtxRetain(&ctx, info.device)))
      return {TK_ERROR_NO_DEVICE, d.describe("cuDevicePrimaryCtxRetain", r)};
    if ((r = d.cuCtxSetCurrent(ctx)))
      return {TK_ERROR_NO_DEVICE, d.describe("cuCtxSetCurrent", r)};
  }
  info.context = ctx;
  char name[256] = {0};
  d.cuDeviceGetName(name, sizeof(name), info.device);
  info.name = name;
  d.cuDeviceGetAttribute(&info.ccMajor, kAttrCcMajor, info.device);
  d.cuDeviceGetAttribute(&info.ccMinor, kAttrCcMinor, info.device);
  d.cuDeviceGetAttribute(&info.smCount, kAttrSmCount, info.device);
  d.cuDeviceGetAttribute(&info.maxSharedPerBlockOptin, kAttrMaxSharedPerBlockOptin, info.device);
  d.cuDeviceGetAttribute(&info.l2Bytes, kAttrL2Bytes, info.device);
  d.cuDeviceGetAttribute(&info.clockKHz, kAttrClockRateKHz, info.device);
  d.cuDeviceGetAttribute(&info.memoryClockKHz, kAttrMemoryClockKHz, info.device);
  d.cuDriverGetVersion(&info.driverVersion);
  return Status::ok();
}

} // namespace tk::runtime
