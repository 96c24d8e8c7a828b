//===- ProgramBuild.cpp - DSL program -> IR -> content key -> PTX ---------===//
#include "tk/runtime/ProgramBuild.h"
#include "tk/runtime/DiskCache.h"
#include "tk/runtime/JitCache.h"

#include "tk/compiler/Registration.h"
#include "tk/compiler/Target/Pipeline.h"
#include "tk/compiler/Version.h"

#include "mlir/IR/MLIRContext.h"

#include <chrono>
#include <mutex>
#include <vector>

namespace tk::runtime {

namespace {

/// An MLIR context with the compiler's dialects loaded. Its threading is off: one thread at a time uses it.
struct CompilerState {
  std::unique_ptr<mlir::MLIRContext> context;
  CompilerState() {
    mlir::DialectRegistry registry;
    compiler::registerDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
  }
};

/// The process's compiler states: a build takes an idle one (or makes one when every state is busy) and gives it
/// back when done, so that kernels built on different threads (an operator's kernels compiled side by side,
/// JitCache.h) build and compile at once, each in a context of its own. There are as many as builds ever ran at
/// once; each keeps what it uniqued for the next build it serves.
class CompilerPool {
public:
  class Lease {
  public:
    explicit Lease(CompilerPool &pool) : pool_(pool), state_(pool.take()) {}
    ~Lease() { pool_.give(std::move(state_)); }
    Lease(const Lease &) = delete;
    Lease &operator=(const Lease &) = delete;
    mlir::MLIRContext &context() { return *state_->context; }

  private:
    CompilerPool &pool_;
    std::unique_ptr<CompilerState> state_;
  };

private:
  std::unique_ptr<CompilerState> take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        std::unique_ptr<CompilerState> state = std::move(idle_.back());
        idle_.pop_back();
        return state;
      }
    }
    return std::make_unique<CompilerState>(); // outside the lock: loading the dialects takes a while
  }
  void give(std::unique_ptr<CompilerState> state) {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(std::move(state));
  }
  std::mutex mutex_;
  std::vector<std::unique_ptr<CompilerState>> idle_;
};
CompilerPool &compilerPool() {
  static CompilerPool pool;
  return pool;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Runs the DSL program in `context` (a compiler state's, held by the caller).
Status build(mlir::MLIRContext &context, const KernelFactory &factory, const compiler::Target &target,
             compiler::BuiltKernel &out) {
  try {
    out = factory.build(context, target);
  } catch (const std::exception &e) {
    return {TK_ERROR_COMPILE, std::string("building the kernel failed: ") + e.what()};
  }
  if (!out.module)
    return {TK_ERROR_COMPILE, "building the kernel produced no module"};
  return Status::ok();
}

/// Compiles a built kernel (consumed) to PTX (its compiler state held by the caller).
Status compileBuilt(compiler::BuiltKernel &built, const compiler::Target &target,
                    const compiler::CompileOptions &options, std::string &ptx) {
  std::string error;
  if (!compiler::compileToPtx(*built.module, target, options, ptx, error))
    return {TK_ERROR_COMPILE, built.signature.name + ": " + error};
  return Status::ok();
}

/// The launch contract, in words: two programs with the same IR but another
/// contract (a grid or promise the runtime checks) are different kernels.
std::string describe(const dsl::KernelSignature &s) {
  std::string out = s.name + ";threads=" + std::to_string(s.threads) +
                    ";persistent=" + std::to_string(s.persistentBlocksPerSm) + ";grid=";
  for (const dsl::Dim &d : s.grid)
    out += d.str() + ",";
  for (const dsl::TensorParam &t : s.tensors) {
    out += ";" + t.name + ":" + dsl::name(t.dtype) + (t.isOutput ? ":out" : ":in") +
           ":align=" + std::to_string(t.alignBytes) + ":shape=";
    for (const dsl::Dim &d : t.shape)
      out += d.str() + ",";
    out += ":strides=";
    for (int64_t st : t.strides)
      out += std::to_string(st) + ",";
  }
  for (const dsl::ScalarParam &p : s.scalars)
    out += ";" + p.name + ":" + dsl::name(p.dtype) + ":scalar";
  for (const auto &[symbol, multiple] : s.symbolMultiples)
    out += ";" + symbol + "%" + std::to_string(multiple);
  return out;
}

} // namespace

std::string contentKey(const compiler::BuiltKernel &built, const compiler::Target &target,
                       const compiler::CompileOptions &options) {
  std::string text = compiler::contentHash(*built.module) + "\n" + describe(built.signature) + "\n" + target.name +
                     "\n" + options.cacheTag() + "\n" + compiler::buildId();
  return sha256Hex(text);
}

Status compileKernel(const KernelFactory &factory, const compiler::Target &target, CompiledKernel &out) {
  CompilerPool::Lease lease(compilerPool());
  auto t0 = std::chrono::steady_clock::now();
  compiler::BuiltKernel built; // destroyed before the lease gives the context back
  Status s = build(lease.context(), factory, target, built);
  if (!s.isOk())
    return s;
  compiler::CompileOptions options = compiler::CompileOptions::fromEnvironment();
  out.contentKey = contentKey(built, target, options);
  out.config = factory.config;
  out.signature = built.signature;
  out.target = target.name;
  if (!(s = compileBuilt(built, target, options, out.ptx)).isOk())
    return s;
  out.compileMs = msSince(t0);
  return Status::ok();
}

struct ProgramBuild::State {
  CompilerPool::Lease lease{compilerPool()}; // first, so that it outlives the IR built in its context
  compiler::BuiltKernel built;
  compiler::Target target;
  compiler::CompileOptions options;
};

ProgramBuild::ProgramBuild() = default;
ProgramBuild::~ProgramBuild() = default;

Status ProgramBuild::run(const KernelFactory &factory, const compiler::Target &target,
                         const compiler::CompileOptions &options) {
  state_ = std::make_unique<State>();
  state_->target = target;
  state_->options = options;
  if (Status s = build(state_->lease.context(), factory, target, state_->built); !s.isOk())
    return s;
  contentKey_ = runtime::contentKey(state_->built, target, options);
  return Status::ok();
}

const dsl::KernelSignature &ProgramBuild::signature() const { return state_->built.signature; }

Status ProgramBuild::compile(std::string &ptx) {
  return compileBuilt(state_->built, state_->target, state_->options, ptx);
}

} // namespace tk::runtime
