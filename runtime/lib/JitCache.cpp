//===- JitCache.cpp -------------------------------------------------------===//
#include "tk/runtime/JitCache.h"
#include "tk/runtime/KernelIndex.h"

#include "tk/runtime/ProgramBuild.h"

#include "tk/compiler/Version.h"

#include <chrono>
#include <cstdio>

namespace tk::runtime {

std::string compilerVersion() { return std::string(compiler::version()) + "+" + compiler::commit(); }

namespace {
double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

static Status loadFunction(const Driver &d, CompiledKernel &kernel, const DeviceInfo *device, const DiskCache *disk);

Status loadModule(const Driver &d, CompiledKernel &kernel, const DeviceInfo *device, const DiskCache *disk) {
  Status s = loadFunction(d, kernel, device, disk);
  // A module that loaded but cannot run (its shared memory past the
  // device's limit, say) is unloaded: the kernel is not cached.
  if (!s.isOk() && kernel.module) {
    d.cuModuleUnload(kernel.module);
    kernel.module = nullptr;
    kernel.function = nullptr;
  }
  return s;
}

std::string aotCubinKey(const std::string &contentKey, int ccMajor, int ccMinor) {
  return contentKey + ".sm" + std::to_string(ccMajor) + std::to_string(ccMinor) + ".aot";
}

/// The driver's JIT of the kernel's PTX, as one whole program. (Not through
/// cuLinkCreate/AddData/Complete, which would hand back the cubin to keep:
/// the linker compiles its input as relocatable code, like `ptxas -c`, which
/// on the H200 took more registers in 77 of the 91 shipped kernels and cost
/// reduce_fused a third of its speed. The driver keeps its own JIT cache.)
static Status jitPtx(const Driver &d, CompiledKernel &kernel) {
  char log[8192] = {0};
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
  if (CUresult r = d.cuModuleLoadDataEx(&kernel.module, kernel.ptx.c_str(), 2, options, values)) {
    kernel.module = nullptr;
    return {TK_ERROR_COMPILE, d.describe("the driver's JIT (cuModuleLoadDataEx)", r) + " for " + kernel.signature.name +
                                  " (" + kernel.target + "): " + log};
  }
  return Status::ok();
}

static Status loadFunction(const Driver &d, CompiledKernel &kernel, const DeviceInfo *device, const DiskCache *disk) {
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = 1;
  // A bundle's cubin (`tk bundle`: ptxas at build time, for any driver that loads it).
  if (device && disk && disk->enabled())
    if (std::optional<std::string> cubin =
            disk->read(aotCubinKey(kernel.contentKey, device->ccMajor, device->ccMinor), DiskCache::Kind::Cubin)) {
      r = d.cuModuleLoadData(&kernel.module, cubin->data());
      kernel.cubinFromBundle = r == 0; // else (a damaged or foreign image) JIT the PTX below
    }
  if (r != 0) {
    kernel.module = nullptr;
    if (Status s = jitPtx(d, kernel); !s.isOk())
      return s;
  }
  if ((r = d.cuModuleGetFunction(&kernel.function, kernel.module, kernel.signature.name.c_str())))
    return {TK_ERROR_COMPILE, d.describe("cuModuleGetFunction", r)};
  kernel.dynamicSharedBytes = compiler::dynamicSharedBytes(kernel.ptx, kernel.signature.name);
  kernel.dependentLaunch = compiler::dependentLaunch(kernel.ptx, kernel.signature.name);
  if (kernel.dynamicSharedBytes > 0) {
    int deviceMax = device ? device->maxSharedPerBlockOptin : 0;
    std::string deviceName = device ? device->name : "";
    if (!device) {
      CUdevice current = 0;
      char name[256] = {0};
      if ((r = d.cuCtxGetDevice(&current)) ||
          (r = d.cuDeviceGetAttribute(&deviceMax, kAttrMaxSharedPerBlockOptin, current)) ||
          (r = d.cuDeviceGetName(name, sizeof(name) - 1, current)))
        return {TK_ERROR_COMPILE, d.describe("reading the device's shared memory limit", r)};
      deviceName = name;
    }
    if (Status s = checkSharedMemory(kernel.signature.name, kernel.dynamicSharedBytes, deviceMax, deviceName);
        !s.isOk())
      return s;
    // Past 48 KB a kernel must ask for its dynamic shared memory beforehand.
    if ((r = d.cuFuncSetAttribute(kernel.function, kFuncAttrMaxDynamicSharedBytes, (int)kernel.dynamicSharedBytes)))
      return {TK_ERROR_COMPILE, d.describe("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r) + " for " +
                                    kernel.signature.name};
  }
  if ((r = d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&kernel.residentBlocksPerSm, kernel.function,
                                                         (int)kernel.signature.threads,
                                                         (size_t)kernel.dynamicSharedBytes)))
    return {TK_ERROR_COMPILE, d.describe("cuOccupancyMaxActiveBlocksPerMultiprocessor", r)};
  kernel.loadMs = msSince(t0);
  return Status::ok();
}

Status checkSharedMemory(const std::string &kernel, int64_t bytes, int deviceMax, const std::string &device) {
  if (bytes <= deviceMax)
    return Status::ok();
  return {TK_ERROR_UNSUPPORTED, kernel + " needs " + std::to_string(bytes) + " bytes of shared memory per block; " +
                                    device + " allows at most " + std::to_string(deviceMax)};
}

std::string JitCache::memoryKey(const KernelFactory &factory, const compiler::Target &target,
                                const std::string &optionsTag) {
  char program[32];
  std::snprintf(program, sizeof(program), "%p", factory.program);
  // A named program by its name (the same in a build without its function);
  // kernels compiled with passes switched off (TK_ABLATE) never meet normal ones.
  return (factory.programName.empty() ? std::string(program) : factory.programName) + "|" + factory.config + "|" +
         target.name + (optionsTag.empty() ? "" : "|" + optionsTag);
}

Status JitCache::get(const KernelFactory &factory, const compiler::Target &target, const Driver *driver,
                     std::shared_ptr<CompiledKernel> &out, const DeviceInfo *device) {
  const std::string name = factory.program ? memoryKey(factory, target, optionsTag_) : "";
  {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (auto it = byName_.find(name); factory.program && it != byName_.end() && (!driver || it->second->function)) {
        ++hits_;
        out = it->second;
        return Status::ok();
      }
      // Another thread is compiling this kernel: wait for it rather than compile it twice.
      if (name.empty() || !inFlight_.count(name))
        break;
      compiled_.wait(lock);
    }
    ++misses_;
    if (!name.empty())
      inFlight_.insert(name);
  }
  // However miss() ends (an exception included), the kernel is no longer in flight and its waiters wake.
  struct Landed {
    JitCache &cache;
    const std::string &name;
    ~Landed() {
      if (!name.empty()) {
        std::lock_guard<std::mutex> lock(cache.mutex_);
        cache.inFlight_.erase(name);
      }
      cache.compiled_.notify_all();
    }
  } landed{*this, name};
  return miss(factory, target, driver, device, name, out);
}

std::shared_ptr<CompiledKernel> JitCache::byContent(const std::string &content, const Driver *driver) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byContent_.find(content);
  return it != byContent_.end() && (!driver || it->second->function) ? it->second : nullptr;
}

std::shared_ptr<CompiledKernel> JitCache::keep(const std::shared_ptr<CompiledKernel> &kernel, const Driver *driver) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (driver)
    driver_ = driver;
  std::shared_ptr<CompiledKernel> &slot = byContent_[kernel->contentKey];
  // Two threads compiled the same IR from different factories: the first one kept wins, the other's module goes.
  if (slot && slot != kernel && (!driver || slot->function)) {
    if (driver && kernel->module)
      driver->cuModuleUnload(kernel->module);
    return slot;
  }
  slot = kernel;
  return kernel;
}

Status JitCache::miss(const KernelFactory &factory, const compiler::Target &target, const Driver *driver,
                      const DeviceInfo *device, const std::string &name, std::shared_ptr<CompiledKernel> &out) {
  auto t0 = std::chrono::steady_clock::now();
  auto remember = [&](const std::shared_ptr<CompiledKernel> &kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (factory.program)
      byName_[name] = kernel;
    out = kernel;
  };
  // A warm start: the index names the kernel without running the program.
  const std::string index = useIndex_ && disk_.enabled() ? indexKey(factory, target, optionsTag_) : "";
  if (!index.empty())
    if (std::shared_ptr<CompiledKernel> kernel = fromIndex(index, factory, target, driver, device, t0)) {
      ++diskHits_;
      remember(kernel);
      return Status::ok();
    }
  ProgramBuild program;
  Status s = program.run(factory, target, options_);
  if (!s.isOk())
    return s;
  const std::string &content = program.contentKey();
  std::shared_ptr<CompiledKernel> kernel = byContent(content, driver); // the same IR from another factory
  if (!kernel) {
    kernel = std::make_shared<CompiledKernel>();
    kernel->contentKey = content;
    kernel->config = factory.config;
    kernel->signature = program.signature();
    kernel->target = target.name;
    if (std::optional<std::string> ptx = disk_.read(content)) {
      kernel->ptx = std::move(*ptx);
      kernel->fromDisk = true;
      ++diskHits_;
    } else {
      if (!(s = program.compile(kernel->ptx)).isOk())
        return s;
      disk_.write(content, kernel->ptx);
    }
    kernel->compileMs = msSince(t0);
    if (driver) {
      s = loadModule(*driver, *kernel, device, &disk_);
      // A disk entry the driver refuses (written by another toolkit, say)
      // is compiled again once and replaced; one this device cannot run
      // (TK_ERROR_UNSUPPORTED) would be refused again.
      if (!s.isOk() && kernel->fromDisk && s.code() != TK_ERROR_UNSUPPORTED) {
        if (!(s = program.compile(kernel->ptx)).isOk())
          return s;
        kernel->fromDisk = false;
        disk_.write(content, kernel->ptx);
        s = loadModule(*driver, *kernel, device, &disk_);
      }
      if (!s.isOk())
        return s;
    }
    kernel = keep(kernel, driver);
  }
  if (!index.empty())
    writeIndex(disk_, index, kernel->contentKey, kernel->signature);
  remember(kernel);
  return Status::ok();
}

std::shared_ptr<CompiledKernel> JitCache::fromIndex(const std::string &index, const KernelFactory &factory,
                                                    const compiler::Target &target, const Driver *driver,
                                                    const DeviceInfo *device, std::chrono::steady_clock::time_point t0) {
  std::string content;
  dsl::KernelSignature signature;
  if (!readIndex(disk_, index, content, signature))
    return nullptr;
  if (std::shared_ptr<CompiledKernel> known = byContent(content, driver))
    return known;
  auto kernel = std::make_shared<CompiledKernel>();
  std::optional<std::string> ptx = disk_.read(content);
  if (!ptx) // the PTX is gone: compile (and index) again
    return nullptr;
  kernel->contentKey = content;
  kernel->config = factory.config;
  kernel->signature = std::move(signature);
  kernel->target = target.name;
  kernel->ptx = std::move(*ptx);
  kernel->fromDisk = kernel->fromIndex = true;
  // One the driver refuses goes the whole way again (compiled, reloaded).
  if (driver && !loadModule(*driver, *kernel, device, &disk_).isOk())
    return nullptr;
  kernel->compileMs = msSince(t0) - kernel->loadMs; // the lookup; the load is loadMs (set before others see it)
  return keep(kernel, driver);
}

bool JitCache::contains(const KernelFactory &factory, const compiler::Target &target, bool loaded) const {
  if (!factory.program)
    return false;
  const std::string name = memoryKey(factory, target, optionsTag_);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byName_.find(name);
  return it != byName_.end() && (!loaded || it->second->function);
}

size_t JitCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return byContent_.size();
}

std::vector<std::shared_ptr<CompiledKernel>> JitCache::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<CompiledKernel>> out;
  for (auto &[key, kernel] : byContent_)
    out.push_back(kernel);
  return out;
}

JitCache::~JitCache() {
  if (!driver_)
    return;
  for (auto &[key, kernel] : byContent_)
    if (kernel->module)
      driver_->cuModuleUnload(kernel->module);
}

} // namespace tk::runtime
