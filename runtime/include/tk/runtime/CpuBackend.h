//===- CpuBackend.h - run tile kernels on the host through MLIR's JIT -----===//
#pragma once

#include "tk/runtime/JitCache.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace mlir {
class ExecutionEngine;
}

namespace tk::runtime {

struct CpuKernel {
  std::string cacheKey;
  dsl::KernelSignature signature;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  double compileMs = 0; ///< DSL -> tile IR -> LLVM -> native code
  ~CpuKernel();
};

/// Builds the kernel and JIT-compiles its CPU lowering (tile-lower-to-cpu).
Status compileForCpu(const KernelFactory &factory, CpuKernel &out);
/// Binds the tensors (host memory) and runs every block on the calling thread.
Status runOnCpu(const CpuKernel &kernel, const std::vector<const tk_tensor *> &tensors);

/// CPU kernels by (kernel + config, compiler version).
class CpuCache {
public:
  Status get(const std::string &kernelKey, const KernelFactory &factory, std::shared_ptr<CpuKernel> &out);
  size_t size() const;
  /// Keys of the kernels compiled so far (kernel + config | cpu | compiler).
  std::vector<std::string> keys() const;

private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<CpuKernel>> entries_;
};

} // namespace tk::runtime
