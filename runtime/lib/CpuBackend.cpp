//===- CpuBackend.cpp -----------------------------------------------------===//
#include "tk/runtime/CpuBackend.h"
#include "tk/runtime/Launcher.h"

#include "tk/compiler/Registration.h"
#include "tk/compiler/Target/CpuPipeline.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace tk::runtime {

CpuKernel::~CpuKernel() = default;

Status compileForCpu(const KernelFactory &factory, CpuKernel &out) {
  static const bool nativeReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)nativeReady;
  auto t0 = std::chrono::steady_clock::now();
  // Each CPU kernel owns its context: the engine keeps references into it.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    compiler::registerDialects(*r);
    return r;
  }();
  static mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  dsl::BuiltKernel built;
  try {
    built = factory(context);
  } catch (const std::exception &e) {
    return {TK_ERROR_COMPILE, std::string("building the kernel failed: ") + e.what()};
  }
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    diagStream << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  mlir::PassManager pm(&context);
  compiler::buildCpuPipeline(pm);
  if (mlir::failed(pm.run(*built.module)))
    return {TK_ERROR_COMPILE, built.signature.name + ": CPU lowering failed:\n" + diagnostics};
  mlir::ExecutionEngineOptions options;
  options.transformer = mlir::makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0, nullptr);
  auto engine = mlir::ExecutionEngine::create(*built.module, options);
  if (!engine) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << engine.takeError();
    return {TK_ERROR_COMPILE, built.signature.name + ": CPU JIT failed: " + msg};
  }
  out.engine = std::move(*engine);
  out.signature = built.signature;
  out.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return Status::ok();
}

Status runOnCpu(const CpuKernel &kernel, const std::vector<const tk_tensor *> &tensors) {
  std::map<std::string, int64_t> symbols;
  Status s = bindTensors(kernel.signature, tensors, symbols);
  if (!s.isOk())
    return s;
  PackedArgs args = packMemrefs(tensors);
  llvm::Error err = kernel.engine->invokePacked(kernel.signature.name, args.pointers);
  if (err) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << err;
    return {TK_ERROR_LAUNCH, kernel.signature.name + ": CPU run failed: " + msg};
  }
  return Status::ok();
}

Status CpuCache::get(const std::string &kernelKey, const KernelFactory &factory, std::shared_ptr<CpuKernel> &out) {
  std::string key = kernelKey + "|cpu|" + compilerVersion();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    out = it->second;
    return Status::ok();
  }
  auto kernel = std::make_shared<CpuKernel>();
  kernel->cacheKey = key;
  Status s = compileForCpu(factory, *kernel);
  if (!s.isOk())
    return s;
  entries_[key] = kernel;
  out = kernel;
  return Status::ok();
}

size_t CpuCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

std::vector<std::string> CpuCache::keys() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto &[key, kernel] : entries_)
    out.push_back(key);
  return out;
}

} // namespace tk::runtime
