//===- Context.cpp --------------------------------------------------------===//
#include "tk/runtime/Context.h"

#include <cstdlib>

using namespace tk::runtime;

Status tk_context_s::ensureDevice() {
  if (target)
    return Status::ok();
  Status s = acquireDevice(driver, device);
  if (!s.isOk())
    return s;
  if (!targetOverride)
    if (const char *env = std::getenv("TK_TARGET")) {
      targetOverride = tk::compiler::findTarget(env);
      if (!targetOverride)
        return Status::invalid(std::string("TK_TARGET=") + env + " is not one of sm_80, sm_90a, sm_100a");
    }
  target = targetOverride ? targetOverride : tk::compiler::targetForDevice(device.ccMajor, device.ccMinor);
  if (!target)
    return {TK_ERROR_NO_DEVICE, device.name + " (compute capability " + std::to_string(device.ccMajor) + "." +
                                    std::to_string(device.ccMinor) + ") is older than sm_80, which tk needs"};
  return Status::ok();
}

Status tk_context_s::run(const std::string &kernelKey, const KernelFactory &factory,
                         const std::vector<const tk_tensor *> &tensors, tk_stream stream) {
  Status s = ensureDevice();
  if (!s.isOk())
    return s;
  std::shared_ptr<CompiledKernel> kernel;
  if (!(s = cache.get(kernelKey, *target, factory, driver, kernel)).isOk())
    return s;
  return launch(*driver, *kernel, tensors, static_cast<CUstream>(stream));
}
