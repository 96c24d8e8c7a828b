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
  std::string contentKey; ///< a hash of the kernel's IR and launch contract (JitCache.h)
  std::string config;     ///< the config's key, for reports
  dsl::KernelSignature signature;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  double compileMs = 0; ///< DSL -> tile IR -> LLVM -> native code
  ~CpuKernel();
};

/// Builds the kernel and JIT-compiles its CPU lowering (tile-lower-to-cpu),
/// for the host's CPU or, when `cpu` is set, for that one (e.g. "x86-64").
Status compileForCpu(const KernelFactory &factory, CpuKernel &out, const std::string &cpu = "");
/// Binds the tensors (host memory) and runs every block on the calling thread.
Status runOnCpu(const CpuKernel &kernel, const std::vector<const tk_tensor *> &tensors,
                const std::vector<int64_t> &scalars = {});

/// CPU kernels of one context: in memory by (program, config), else by
/// the content of the IR the program builds (as JitCache).
class CpuCache {
public:
  Status get(const KernelFactory &factory, std::shared_ptr<CpuKernel> &out);
  /// Compiles the kernels after this call for `cpu` (LLVM's name, e.g.
  /// "x86-64": the baseline without AVX or bf16 instructions) instead of the
  /// host's, as on a machine without the host's extensions (tests).
  void setTargetCpu(const std::string &cpu);
  size_t size() const;
  /// The configs of the kernels compiled so far.
  std::vector<std::string> configs() const;

private:
  mutable std::mutex mutex_;
  std::string cpu_; ///< "" for the host's
  std::unordered_map<std::string, std::shared_ptr<CpuKernel>> byName_, byContent_;
};

} // namespace tk::runtime
