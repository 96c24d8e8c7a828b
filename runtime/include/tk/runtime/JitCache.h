//===- JitCache.h - compiled kernels, keyed by kernel, config, SM, compiler ===//
#pragma once

#include "tk/compiler/Target/Targets.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/DiskCache.h"
#include "tk/runtime/Driver.h"
#include "tk/runtime/Status.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tk::runtime {

/// Builds a kernel's tile IR (a DSL program applied to one config).
using KernelFactory = std::function<dsl::BuiltKernel(mlir::MLIRContext &)>;

struct CompiledKernel {
  std::string cacheKey;
  std::string target;
  dsl::KernelSignature signature;
  std::string ptx;
  double compileMs = 0; ///< DSL -> tile IR -> PTX
  double loadMs = 0;    ///< PTX -> loaded module (driver JIT), 0 when not loaded
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  /// Blocks of this kernel one SM holds at once (registers, shared memory,
  /// threads), from the driver at load; 0 when not loaded.
  int residentBlocksPerSm = 0;
  bool fromDisk = false; ///< PTX read from the disk cache (compileMs is then the DSL run only)
};

/// The compiler's identity in cache keys: version and commit.
std::string compilerVersion();

/// Runs `factory` and the pipeline for `target` (no driver needed).
Status compileKernel(const KernelFactory &factory, const compiler::Target &target, CompiledKernel &out);

/// Runs only the DSL program, for the launch signature of cached PTX.
Status signatureOf(const KernelFactory &factory, CompiledKernel &out);

/// In-memory cache, backed by the disk cache (DiskCache.h). The key is (kernel name + config, target SM, compiler
/// version); `kernelKey` must name every config value the IR depends on.
class JitCache {
public:
  ~JitCache();
  static std::string makeKey(const std::string &kernelKey, const compiler::Target &target);

  /// The cached kernel, compiling (and, when `driver` is given, loading) it on a miss.
  Status get(const std::string &kernelKey, const compiler::Target &target, const KernelFactory &factory,
             const Driver *driver, std::shared_ptr<CompiledKernel> &out);

  size_t size() const;
  /// Every cached kernel (for reports: compile and load times).
  std::vector<std::shared_ptr<CompiledKernel>> snapshot() const;
  size_t hits() const { return hits_; }
  size_t diskHits() const { return diskHits_; }
  const DiskCache &disk() const { return disk_; }
  size_t misses() const { return misses_; }

private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<CompiledKernel>> entries_;
  const Driver *driver_ = nullptr;
  size_t hits_ = 0, misses_ = 0, diskHits_ = 0;
  DiskCache disk_ = DiskCache::fromEnvironment();
};

/// Loads PTX into the current CUDA context and finds the entry `name`.
Status loadModule(const Driver &driver, CompiledKernel &kernel);

} // namespace tk::runtime
