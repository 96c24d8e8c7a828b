//===- CpuBackend.cpp -----------------------------------------------------===//
#include "tk/runtime/CpuBackend.h"
#include "tk/runtime/Launcher.h"

#include "tk/compiler/Registration.h"
#include "tk/compiler/Target/CpuPipeline.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <chrono>

namespace tk::runtime {

CpuKernel::~CpuKernel() = default;

namespace {
/// The CPU path's MLIR context (each kernel's engine keeps references into
/// it) and the lock its builds and compilations take turns under.
std::mutex &cpuCompilerMutex() {
  static std::mutex mutex;
  return mutex;
}
mlir::MLIRContext &cpuContext() {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    compiler::registerDialects(*r);
    return r;
  }();
  static mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  static bool loaded = (context.loadAllAvailableDialects(), true);
  (void)loaded;
  return context;
}

Status buildForCpu(const KernelFactory &factory, compiler::BuiltKernel &built) {
  try {
    built = factory.build(cpuContext(), compiler::cpuTarget());
  } catch (const std::exception &e) {
    return {TK_ERROR_COMPILE, std::string("building the kernel failed: ") + e.what()};
  }
  return Status::ok();
}

/// A target machine for `cpu` on the host's architecture, with none of the
/// host's extensions.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machineFor(const std::string &cpu) {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCPU(cpu);
  builder->getFeatures() = llvm::SubtargetFeatures();
  return builder->createTargetMachine();
}

/// LLVM's -O2 without loop unrolling (full unrolling only where metadata asks for it): on the large kernels
/// (mhc_multilayer_recompute's 10 layers) full unrolling's peeling analysis took 45 s of a compile.
llvm::Error optimizeForCpu(llvm::Module *module) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  llvm::PassBuilder builder(nullptr, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(*module, modules);
  return llvm::Error::success();
}

/// Lowers a built kernel for the host (or `cpu`) and JIT-compiles it (the lock held).
Status jitForCpu(compiler::BuiltKernel &built, CpuKernel &out, const std::string &cpu) {
  static const bool nativeReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)nativeReady;
  mlir::MLIRContext &context = cpuContext();
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
  // options.transformer is a function_ref: the function it refers to must
  // outlive create() (a temporary here dangled).
  std::function<llvm::Error(llvm::Module *)> optimize = optimizeForCpu;
  mlir::ExecutionEngineOptions options;
  options.transformer = optimize;
  std::unique_ptr<llvm::TargetMachine> machine;
  if (!cpu.empty()) {
    auto m = machineFor(cpu);
    if (!m) {
      std::string msg;
      llvm::raw_string_ostream os(msg);
      os << m.takeError();
      return {TK_ERROR_COMPILE, "no target machine for CPU '" + cpu + "': " + msg};
    }
    machine = std::move(*m);
  }
  auto engine = mlir::ExecutionEngine::create(*built.module, options, std::move(machine));
  if (!engine) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << engine.takeError();
    return {TK_ERROR_COMPILE, built.signature.name + ": CPU JIT failed: " + msg};
  }
  out.engine = std::move(*engine);
  out.signature = built.signature;
  return Status::ok();
}
} // namespace

Status compileForCpu(const KernelFactory &factory, CpuKernel &out, const std::string &cpu) {
  std::lock_guard<std::mutex> lock(cpuCompilerMutex());
  auto t0 = std::chrono::steady_clock::now();
  compiler::BuiltKernel built;
  Status s = buildForCpu(factory, built);
  if (!s.isOk() || !(s = jitForCpu(built, out, cpu)).isOk())
    return s;
  out.config = factory.config;
  out.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return Status::ok();
}

Status runOnCpu(const CpuKernel &kernel, const std::vector<const tk_tensor *> &given,
                const std::vector<int64_t> &scalars) {
  std::vector<tk_tensor> promoted;
  const std::vector<const tk_tensor *> tensors = withDeclaredRanks(kernel.signature, given, promoted);
  std::map<std::string, int64_t> symbols;
  Status s = checkScalars(kernel.signature, scalars);
  if (s.isOk())
    s = bindTensors(kernel.signature, tensors, symbols);
  // The GPU launcher's checks: the grid's extents, and no empty tensor when it has blocks (the CPU kernel would
  // run them without reading one, where the GPU refuses).
  unsigned grid[3];
  if (s.isOk())
    s = launchGrid(kernel.signature, symbols, /*smCount=*/1, grid);
  if (s.isOk() && grid[0] > 0)
    s = refuseEmptyTensors(kernel.signature, tensors);
  if (!s.isOk() || grid[0] == 0)
    return s;
  PackedArgs args = packMemrefs(tensors, scalars);
  llvm::Error err = kernel.engine->invokePacked(kernel.signature.name, args.pointers);
  if (err) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << err;
    return {TK_ERROR_LAUNCH, kernel.signature.name + ": CPU run failed: " + msg};
  }
  return Status::ok();
}

Status CpuCache::get(const KernelFactory &factory, std::shared_ptr<CpuKernel> &out) {
  const std::string name = factory.program ? JitCache::memoryKey(factory, compiler::cpuTarget()) : "";
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = byName_.find(name); factory.program && it != byName_.end()) {
    out = it->second;
    return Status::ok();
  }
  std::lock_guard<std::mutex> compiling(cpuCompilerMutex());
  auto t0 = std::chrono::steady_clock::now();
  compiler::BuiltKernel built;
  Status s = buildForCpu(factory, built);
  if (!s.isOk())
    return s;
  const std::string content = contentKey(built, compiler::cpuTarget(), compiler::CompileOptions());
  std::shared_ptr<CpuKernel> kernel;
  if (auto it = byContent_.find(content); it != byContent_.end()) {
    kernel = it->second;
  } else {
    kernel = std::make_shared<CpuKernel>();
    kernel->contentKey = content;
    kernel->config = factory.config;
    if (!(s = jitForCpu(built, *kernel, cpu_)).isOk())
      return s;
    kernel->compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    byContent_[content] = kernel;
  }
  if (factory.program)
    byName_[name] = kernel;
  out = kernel;
  return Status::ok();
}

void CpuCache::setTargetCpu(const std::string &cpu) {
  std::lock_guard<std::mutex> lock(mutex_);
  cpu_ = cpu;
  byName_.clear(); // compiled for the previous CPU
  byContent_.clear();
}

size_t CpuCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return byContent_.size();
}

std::vector<std::string> CpuCache::configs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto &[key, kernel] : byContent_)
    out.push_back(kernel->config);
  return out;
}

} // namespace tk::runtime
