//===- JitCache.h - compiled kernels, in memory and on disk ---------------===//
#pragma once

#include "tk/compiler/Target/CompileOptions.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/runtime/Device.h"
#include "tk/runtime/DiskCache.h"
#include "tk/runtime/Driver.h"
#include "tk/runtime/KernelFactory.h"
#include "tk/runtime/Status.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace tk::runtime {

struct CompiledKernel {
  /// What the disk cache knows it by: a hash of the kernel's IR and launch
  /// contract, the target, the compile options and the compiler's build id.
  std::string contentKey;
  /// The config's key (KernelFactory::config), for reports.
  std::string config;
  std::string target;
  dsl::KernelSignature signature;
  std::string ptx;
  double compileMs = 0; ///< DSL -> tile IR -> PTX (the DSL run alone when the PTX came from disk)
  double loadMs = 0;    ///< PTX -> loaded module (driver JIT, or a bundle's cubin), 0 when not loaded
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  /// Blocks of this kernel one SM holds at once (registers, shared memory,
  /// threads), from the driver at load; 0 when not loaded.
  int residentBlocksPerSm = 0;
  /// Dynamic shared memory each block launches with (bytes; 0: the kernel's
  /// shared memory is static), from the PTX's header at load.
  int64_t dynamicSharedBytes = 0;
  /// The kernel waits for the one before it at its start (tile-dependent-launch,
  /// from the PTX's header): it launches with programmatic stream serialization.
  bool dependentLaunch = false;
  bool fromDisk = false; ///< PTX read from the disk cache
  bool cubinFromBundle = false; ///< loaded from a bundle's ptxas cubin (`tk bundle`): no driver JIT
  bool fromIndex = false;     ///< found through the disk index: the DSL program did not run
};

/// The compiler's identity for reports: version and commit.
std::string compilerVersion();

/// Runs the factory and the pipeline for `target` (no driver, no cache).
Status compileKernel(const KernelFactory &factory, const compiler::Target &target, CompiledKernel &out);

/// The disk key of a built kernel: a hash of its IR, its launch contract,
/// the target, the options that change code and the compiler's build id.
std::string contentKey(const compiler::BuiltKernel &built, const compiler::Target &target,
                       const compiler::CompileOptions &options);

/// Compiled kernels of one context. In memory by (program, config, target,
/// options); a miss runs the DSL program and finds the kernel by its
/// content key, in memory (another factory built the same IR) or on disk,
/// and compiles it only when neither has it.
class JitCache {
public:
  /// `useIndex`: look kernels up in the disk index first (KernelIndex.h);
  /// off, a new process always runs the program to find its content.
  explicit JitCache(bool useIndex = true) : useIndex_(useIndex) {}
  ~JitCache();
  /// The in-memory name of `factory`'s kernel for `target` under compile
  /// options whose cacheTag() is `optionsTag` (an ablation is another kernel).
  static std::string memoryKey(const KernelFactory &factory, const compiler::Target &target,
                               const std::string &optionsTag = "");
  /// The compile options of this cache's kernels: the environment's
  /// (TK_ABLATE, TK_MIN_BLOCKS_PER_SM, ...) when the cache was made, read
  /// once per context rather than on every launch.
  const compiler::CompileOptions &options() const { return options_; }

  /// The cached kernel, compiling (and, when `driver` is given, loading) it
  /// on a miss. With `device` (the context's bound device) the driver's
  /// cubin is kept on disk too, and a later process loads it without JIT.
  Status get(const KernelFactory &factory, const compiler::Target &target, const Driver *driver,
             std::shared_ptr<CompiledKernel> &out, const DeviceInfo *device = nullptr);

  size_t size() const;
  /// Every cached kernel (for reports: compile and load times).
  std::vector<std::shared_ptr<CompiledKernel>> snapshot() const;
  size_t hits() const { return hits_; }
  size_t diskHits() const { return diskHits_; }
  size_t misses() const { return misses_; }
  /// Whether get() would find `factory`'s kernel for `target` in memory (loaded, with `loaded`).
  bool contains(const KernelFactory &factory, const compiler::Target &target, bool loaded) const;
  const DiskCache &disk() const { return disk_; }

private:
  /// The kernel the disk index names for `factory` (PTX read, loaded with a
  /// driver), or null (no entry, or one that does not load).
  std::shared_ptr<CompiledKernel> fromIndex(const std::string &index, const KernelFactory &factory,
                                            const compiler::Target &target, const Driver *driver,
                                            const DeviceInfo *device, std::chrono::steady_clock::time_point t0);
  /// get() on a miss, outside the lock: the index, the program, the disk, the compile and the load.
  Status miss(const KernelFactory &factory, const compiler::Target &target, const Driver *driver,
              const DeviceInfo *device, const std::string &name, std::shared_ptr<CompiledKernel> &out);
  /// The kernel of this IR already kept (loaded, with a driver), or null.
  std::shared_ptr<CompiledKernel> byContent(const std::string &content, const Driver *driver) const;
  /// Keeps `kernel` by its content; returns the one kept (another thread's, when it got there first).
  std::shared_ptr<CompiledKernel> keep(const std::shared_ptr<CompiledKernel> &kernel, const Driver *driver);
  /// get() holds the lock for lookups only: kernels compile and load outside it, several at once (Context's
  /// prepare), and a get() of a kernel another thread is compiling waits for it (`compiled_`).
  mutable std::mutex mutex_;
  std::condition_variable compiled_;
  std::set<std::string> inFlight_;
  std::unordered_map<std::string, std::shared_ptr<CompiledKernel>> byName_, byContent_;
  const Driver *driver_ = nullptr;
  std::atomic<size_t> hits_{0}, misses_{0}, diskHits_{0};
  DiskCache disk_ = DiskCache::fromEnvironment();
  compiler::CompileOptions options_ = compiler::CompileOptions::fromEnvironment();
  std::string optionsTag_ = options_.cacheTag();
  bool useIndex_ = true;
};

/// Loads the kernel into the current CUDA context and finds its entry: from
/// `disk`'s bundle cubin for `device` (`tk bundle`) when there is one, else
/// through the driver's JIT of its PTX (which the driver caches on its own).
/// For a kernel with dynamic shared memory, checks it against the device's
/// limit and raises the kernel's. Without `device` (and `disk`) the limit is
/// read from the driver.
Status loadModule(const Driver &driver, CompiledKernel &kernel, const DeviceInfo *device = nullptr,
                  const DiskCache *disk = nullptr);

/// The disk key of the cubin `tk bundle` assembles with ptxas from
/// `contentKey`'s PTX for devices of compute capability ccMajor.ccMinor
/// (loaded when the driver made none: it needs no driver JIT at all).
std::string aotCubinKey(const std::string &contentKey, int ccMajor, int ccMinor);

/// ok when `bytes` of dynamic shared memory per block fit the device's
/// opt-in limit `deviceMax`; else TK_ERROR_UNSUPPORTED naming the kernel,
/// both sizes and the device.
Status checkSharedMemory(const std::string &kernel, int64_t bytes, int deviceMax, const std::string &device);

} // namespace tk::runtime
