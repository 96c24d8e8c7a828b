//===- JitCache.cpp -------------------------------------------------------===//
#include "tk/runtime/JitCache.h"

#include "tk/compiler/Registration.h"
#include "tk/compiler/Target/Pipeline.h"
#include "tk/compiler/Version.h"

#include "mlir/IR/MLIRContext.h"

#include <chrono>

namespace tk::runtime {

std::string compilerVersion() { return std::string(compiler::version()) + "+" + compiler::commit(); }

namespace {
/// One MLIR context for the process; kernels are compiled one at a time.
struct CompilerState {
  std::mutex mutex;
  std::unique_ptr<mlir::MLIRContext> context;
  CompilerState() {
    mlir::DialectRegistry registry;
    compiler::registerDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
  }
};
CompilerState &compilerState() {
  static CompilerState state;
  return state;
}
double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

Status compileKernel(const KernelFactory &factory, const compiler::Target &target, CompiledKernel &out) {
  CompilerState &state = compilerState();
  std::lock_guard<std::mutex> lock(state.mutex);
  auto t0 = std::chrono::steady_clock::now();
  dsl::BuiltKernel built;
  try {
    built = factory(*state.context);
  } catch (const std::exception &e) {
    return {TK_ERROR_COMPILE, std::string("building the kernel failed: ") + e.what()};
  }
  std::string error;
  if (!compiler::compileToPtx(*built.module, target, compiler::CompileOptions::fromEnvironment(), out.ptx, error))
    return {TK_ERROR_COMPILE, built.signature.name + ": " + error};
  out.signature = built.signature;
  out.target = target.name;
  out.compileMs = msSince(t0);
  return Status::ok();
}

Status loadModule(const Driver &d, CompiledKernel &kernel) {
  auto t0 = std::chrono::steady_clock::now();
  char log[8192] = {0};
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
  CUresult r = d.cuModuleLoadDataEx(&kernel.module, kernel.ptx.c_str(), 2, options, values);
  if (r != 0)
    return {TK_ERROR_COMPILE, d.describe("cuModuleLoadDataEx", r) + " for " + kernel.signature.name + " (" +
                                  kernel.target + "): " + log};
  if ((r = d.cuModuleGetFunction(&kernel.function, kernel.module, kernel.signature.name.c_str())))
    return {TK_ERROR_COMPILE, d.describe("cuModuleGetFunction", r)};
  if ((r = d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&kernel.residentBlocksPerSm, kernel.function,
                                                         (int)kernel.signature.threads, 0)))
    return {TK_ERROR_COMPILE, d.describe("cuOccupancyMaxActiveBlocksPerMultiprocessor", r)};
  kernel.loadMs = msSince(t0);
  return Status::ok();
}

Status signatureOf(const KernelFactory &factory, CompiledKernel &out) {
  CompilerState &state = compilerState();
  std::lock_guard<std::mutex> lock(state.mutex);
  auto t0 = std::chrono::steady_clock::now();
  try {
    out.signature = factory(*state.context).signature;
  } catch (const std::exception &e) {
    return {TK_ERROR_COMPILE, std::string("building the kernel failed: ") + e.what()};
  }
  out.compileMs = msSince(t0);
  return Status::ok();
}

std::string JitCache::makeKey(const std::string &kernelKey, const compiler::Target &target) {
  // Kernels compiled with passes switched off (TK_ABLATE) never meet normal ones.
  std::string tag = compiler::CompileOptions::fromEnvironment().cacheTag();
  return kernelKey + "|" + target.name + "|" + compilerVersion() + (tag.empty() ? "" : "|" + tag);
}

Status JitCache::get(const std::string &kernelKey, const compiler::Target &target, const KernelFactory &factory,
                     const Driver *driver, std::shared_ptr<CompiledKernel> &out) {
  std::string key = makeKey(kernelKey, target);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it != entries_.end() && (!driver || it->second->function)) {
    ++hits_;
    out = it->second;
    return Status::ok();
  }
  ++misses_;
  auto kernel = std::make_shared<CompiledKernel>();
  kernel->cacheKey = key;
  Status s;
  if (std::optional<std::string> ptx = disk_.read(key)) {
    // The PTX is on disk; the DSL still runs (cheaply) for the launch signature.
    if (!(s = signatureOf(factory, *kernel)).isOk())
      return s;
    kernel->ptx = *ptx;
    kernel->target = target.name;
    kernel->fromDisk = true;
    ++diskHits_;
  } else {
    if (!(s = compileKernel(factory, target, *kernel)).isOk())
      return s;
    disk_.write(key, kernel->ptx);
  }
  if (driver) {
    if (!(s = loadModule(*driver, *kernel)).isOk())
      return s;
    driver_ = driver;
  }
  entries_[key] = kernel;
  out = kernel;
  return Status::ok();
}

size_t JitCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

std::vector<std::shared_ptr<CompiledKernel>> JitCache::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<CompiledKernel>> out;
  for (auto &[key, kernel] : entries_)
    out.push_back(kernel);
  return out;
}

JitCache::~JitCache() {
  if (!driver_)
    return;
  for (auto &[key, kernel] : entries_)
    if (kernel->module)
      driver_->cuModuleUnload(kernel->module);
}

} // namespace tk::runtime
