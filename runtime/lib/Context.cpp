//===- Context.cpp --------------------------------------------------------===//
#include "tk/runtime/Context.h"
#include "tk/runtime/CallTensors.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

using namespace tk::runtime;

Status tk_context_s::checkNumSms(int n) const {
  if (target && n > device.smCount)
    return Status::invalid("tk_set_num_sms: " + std::to_string(n) + " SMs, but " + device.name + " has " +
                           std::to_string(device.smCount));
  return Status::ok();
}

tk_context_s::~tk_context_s() {
  if (target && scratchArena.blocks()) { // its memory freed in the bound CUDA context, the caller's restored
    CUcontext caller = nullptr;
    const bool known = driver->cuCtxGetCurrent(&caller) == 0;
    driver->cuCtxSetCurrent(device.context);
    scratchArena.destroy(*driver);
    if (known && caller != device.context)
      driver->cuCtxSetCurrent(caller);
  }
  if (readBackHost_)
    driver->cuMemFreeHost(readBackHost_);
}

Status tk_context_s::readBack(CUdeviceptr src, size_t bytes, tk_stream stream,
                               const std::function<void(const void *)> &inspect) {
  std::lock_guard<std::mutex> lock(readBackMutex_);
  const auto s = static_cast<CUstream>(stream);
  if (bytes > readBackBytes_) {
    if (readBackHost_)
      driver->cuMemFreeHost(readBackHost_);
    readBackHost_ = nullptr, readBackBytes_ = 0;
    const size_t grown = std::max<size_t>(bytes, 64 * 1024);
    if (CUresult r = driver->cuMemAllocHost(&readBackHost_, grown))
      return {TK_ERROR_LAUNCH, driver->describe("cuMemAllocHost", r)};
    readBackBytes_ = grown;
  }
  if (CUresult r = driver->cuMemcpyDtoHAsync(readBackHost_, src, bytes, s))
    return {TK_ERROR_LAUNCH, driver->describe("cuMemcpyDtoHAsync", r)};
  if (CUresult r = driver->cuStreamSynchronize(s))
    return {TK_ERROR_LAUNCH, driver->describe("cuStreamSynchronize", r)};
  inspect(readBackHost_); // in place, under the lock: no copy of the page-locked buffer
  return Status::ok();
}

Status tk_context_s::ensureDevice() {
  std::lock_guard<std::mutex> lock(deviceMutex_); // two threads' first calls bind once
  if (target) {
    // A thread that has made no CUDA call yet (a new worker thread) has no
    // current context: the driver calls of this one run in the bound one.
    CUcontext current = nullptr;
    if (driver->cuCtxGetCurrent(&current) == 0 && !current)
      if (CUresult r = driver->cuCtxSetCurrent(device.context))
        return {TK_ERROR_LAUNCH, driver->describe("cuCtxSetCurrent", r)};
    return Status::ok();
  }
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

/// TK_BACKEND=cpu runs every operator on the host (tensors must be host memory).
static bool cpuForced() {
  const char *b = std::getenv("TK_BACKEND");
  return b && std::string(b) == "cpu";
}

/// Whether a call on `tensors` runs on the CPU path; an error for tensors in
/// both places.
static Status onCpu(const std::vector<const tk_tensor *> &tensors, bool &cpu) {
  size_t onHost = 0;
  for (const tk_tensor *t : tensors)
    onHost += t && t->device == TK_DEVICE_CPU;
  if (onHost != 0 && onHost != tensors.size())
    return Status::invalid("tensors of one call must all be in host memory or all on the CUDA device");
  cpu = onHost || cpuForced();
  return Status::ok();
}

Status tk_context_s::targetFor(const std::vector<const tk_tensor *> &tensors, tk::compiler::Target &out) {
  bool cpu = false;
  Status s = onCpu(tensors, cpu);
  if (!s.isOk())
    return s;
  if (cpu) {
    out = tk::compiler::cpuTarget();
    return Status::ok();
  }
  if (!(s = ensureDevice()).isOk())
    return s;
  out = *target;
  return Status::ok();
}

void tk_context_s::prepare(const std::vector<KernelFactory> &factories, const std::vector<const tk_tensor *> &tensors) {
  tk::compiler::Target t;
  if (!targetFor(tensors, t).isOk() || t.computeCapability == 0) // an error is run()'s to report; the CPU path
    return;
  std::vector<const KernelFactory *> missing;
  for (const KernelFactory &f : factories)
    if (!cache.contains(f, t, /*loaded=*/true))
      missing.push_back(&f);
  if (missing.size() < 2)
    return;
  // Nothing escapes: an exception leaving a thread would end the process; the kernel's run() meets it again.
  auto compile = [this, &t](const KernelFactory *f) noexcept {
    try {
      std::shared_ptr<CompiledKernel> kernel;
      if (ensureDevice().isOk()) // makes the bound CUDA context current on a new thread
        (void)cache.get(*f, t, driver, kernel, &device);
    } catch (...) {
    }
  };
  std::vector<std::thread> others;
  size_t next = 1;
  try {
    for (; next < missing.size(); ++next)
      others.emplace_back(compile, missing[next]);
  } catch (...) { // no thread to be had: the rest on this one
  }
  compile(missing[0]);
  for (; next < missing.size(); ++next)
    compile(missing[next]);
  for (std::thread &other : others)
    other.join();
}

Status tk_context_s::compileForOtherTargets(const KernelFactory &factory) {
  for (const tk::compiler::Target &t : alsoCompileFor) {
    std::string key = JitCache::memoryKey(factory, t);
    if (compiledForOtherTargets_.count(key))
      continue;
    CompiledKernel compiled;
    if (Status s = compileKernel(factory, t, compiled); !s.isOk())
      return {s.code(), "compiling for " + t.name + " as well: " + s.message()};
    if (onOtherTargetCompiled)
      if (Status s = onOtherTargetCompiled(compiled, t); !s.isOk())
        return s;
    compiledForOtherTargets_.insert(key);
  }
  return Status::ok();
}

Status tk_context_s::run(const KernelFactory &factory, const std::vector<const tk_tensor *> &tensors,
                         tk_stream stream, const std::vector<int64_t> &scalars) {
  bool cpu = false;
  if (Status s = onCpu(tensors, cpu); !s.isOk())
    return s;
  if (cpu) {
    if (Status s = CallTensors::checkBeforeFirstKernel(); !s.isOk())
      return s;
    std::shared_ptr<CpuKernel> kernel;
    Status s = cpuCache.get(factory, kernel);
    if (!s.isOk())
      return s;
    if (!alsoCompileFor.empty() && !(s = compileForOtherTargets(factory)).isOk())
      return s;
    return runOnCpu(*kernel, tensors, scalars);
  }
  Status s = ensureDevice();
  if (!s.isOk() || !(s = CallTensors::checkBeforeFirstKernel()).isOk())
    return s;
  std::shared_ptr<CompiledKernel> kernel;
  if (!(s = cache.get(factory, *target, driver, kernel, &device)).isOk())
    return s;
  const int sms = numSms.load();
  if (!(s = checkNumSms(sms)).isOk())
    return s;
  return launch(*driver, *kernel, tensors, static_cast<CUstream>(stream), sms ? sms : device.smCount, scalars);
}
