//===- RuntimeOnly.cpp - libtk_rt: the compiler's side, absent ------------===//
//
// libtk_rt is libtk without LLVM and MLIR: it runs the shipped operators on
// the GPU with kernels it finds through the disk index (a bundle, `tk
// bundle`: TK_CACHE_DIR), and compiles none. These stand in for the two
// files that reach the compiler (ProgramBuild.cpp, CpuBackend.cpp): a kernel
// the bundle lacks, or a call on host tensors, is an error that says so.
//===----------------------------------------------------------------------===//
#include "tk/runtime/CpuBackend.h"
#include "tk/runtime/ProgramBuild.h"

namespace tk::runtime {

struct ProgramBuild::State {};

ProgramBuild::ProgramBuild() = default;
ProgramBuild::~ProgramBuild() = default;

Status ProgramBuild::run(const KernelFactory &factory, const compiler::Target &target,
                         const compiler::CompileOptions &) {
  return {TK_ERROR_UNSUPPORTED,
          "the kernel " + factory.config + " for " + target.name +
              " is not in the bundle (TK_CACHE_DIR): libtk_rt loads bundled kernels and compiles none. Run the "
              "application once with libtk.so and TK_CACHE_DIR set to the bundle, then `tk bundle DIR`"};
}

const dsl::KernelSignature &ProgramBuild::signature() const {
  static const dsl::KernelSignature none;
  return none;
}

Status ProgramBuild::compile(std::string &) { return {TK_ERROR_UNSUPPORTED, "libtk_rt compiles no kernels"}; }

Status compileKernel(const KernelFactory &factory, const compiler::Target &target, CompiledKernel &) {
  return {TK_ERROR_UNSUPPORTED, "libtk_rt compiles no kernels (" + factory.config + " for " + target.name + ")"};
}

static Status noCpuPath() {
  return {TK_ERROR_UNSUPPORTED, "libtk_rt runs operators on the GPU only; tensors in host memory (the CPU path) "
                                "need libtk.so"};
}

Status CpuCache::get(const KernelFactory &, std::shared_ptr<CpuKernel> &) { return noCpuPath(); }
void CpuCache::setTargetCpu(const std::string &cpu) { cpu_ = cpu; }
size_t CpuCache::size() const { return 0; }
std::vector<std::string> CpuCache::configs() const { return {}; }
Status runOnCpu(const CpuKernel &, const std::vector<const tk_tensor *> &, const std::vector<int64_t> &) {
  return noCpuPath();
}
Status compileForCpu(const KernelFactory &, CpuKernel &, const std::string &) { return noCpuPath(); }

} // namespace tk::runtime
