//===- KernelFactory.h - how to build one kernel --------------------------===//
//
// A DSL program applied to one config, for a target. The runtime names a
// compiled kernel two ways, neither of them a string a caller writes by
// hand: in a context's memory by the program's identity (the address of its
// build function) and the config's key, so a warm call costs a map lookup;
// on disk by a hash of the IR the program built (BuiltKernel.h), so an
// edited kernel is never served the PTX of its old self.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/dsl/Signature.h"

#ifdef TK_RUNTIME_ONLY // which builds no programs: the type's name is enough
namespace tk::compiler {
struct BuiltKernel;
}
#else
#include "tk/compiler/BuiltKernel.h"
#endif
#include "tk/compiler/Target/Targets.h"

#include <functional>
#include <string>
#include <type_traits>
#include <typeinfo>

namespace mlir {
class MLIRContext;
}

namespace tk::runtime {

struct KernelFactory {
  using Build = std::function<compiler::BuiltKernel(mlir::MLIRContext &, const compiler::Target &)>;

  /// The DSL program: the address of its build function. Null for an
  /// anonymous factory, which contexts do not keep in memory by name (they
  /// still find its kernel by content).
  const void *program = nullptr;
  /// The program's stable name (TK_PROGRAM), "" for one passed as a bare
  /// function: with it, the disk index names the kernel the same way in
  /// every binary built from the same sources (tk, libtk.so, a bundle's
  /// reader); without it, by the binary's build id and the function's offset.
  std::string programName;
  /// The config's key: every value the program's IR depends on.
  std::string config;
  Build build;

  KernelFactory() = default;
  KernelFactory(const void *program, std::string config, Build build)
      : program(program), config(std::move(config)), build(std::move(build)) {}
#ifndef TK_RUNTIME_ONLY
  /// An anonymous factory from a callable taking (MLIRContext &) or
  /// (MLIRContext &, const Target &).
  template <typename F, typename = std::enable_if_t<std::is_invocable_v<F, mlir::MLIRContext &> ||
                                                    std::is_invocable_v<F, mlir::MLIRContext &, const compiler::Target &>>>
  KernelFactory(F f) {
    if constexpr (std::is_invocable_v<F, mlir::MLIRContext &, const compiler::Target &>)
      build = std::move(f);
    else
      build = [f = std::move(f)](mlir::MLIRContext &ctx, const compiler::Target &) { return f(ctx); };
  }
#endif
};

/// A build function with the stable name TK_PROGRAM gives it.
template <typename F> struct Program {
  const char *name;
  F fn;
};

/// `fn` with its name, as the shipped kernels pass their programs (the
/// config's type tells apart programs of the same name in two namespaces).
/// Built with TK_RUNTIME_ONLY (libtk_rt, which loads bundled kernels and
/// compiles none), the name alone: the program is never referenced, so the
/// DSL and MLIR stay out of the link.
#ifdef TK_RUNTIME_ONLY
#define TK_PROGRAM(fn)                                                                                                 \
  ::tk::runtime::Program<decltype(&fn)> { #fn, nullptr }
#else
#define TK_PROGRAM(fn)                                                                                                 \
  ::tk::runtime::Program<decltype(&fn)> { #fn, &fn }
#endif

#ifndef TK_RUNTIME_ONLY
/// The factory of a program without a config.
inline KernelFactory factoryOf(compiler::BuiltKernel (*buildFn)(mlir::MLIRContext &)) {
  return {reinterpret_cast<const void *>(buildFn), "",
          [buildFn](mlir::MLIRContext &ctx, const compiler::Target &) { return buildFn(ctx); }};
}

/// The factory of `buildFn` applied to `config` (named by config.key()).
/// `buildFn` takes the config, and the target where its choices depend on it.
template <typename Config>
KernelFactory factoryOf(compiler::BuiltKernel (*buildFn)(mlir::MLIRContext &, const Config &), const Config &config) {
  return {reinterpret_cast<const void *>(buildFn), config.key(),
          [buildFn, config](mlir::MLIRContext &ctx, const compiler::Target &) { return buildFn(ctx, config); }};
}
template <typename Config>
KernelFactory factoryOf(compiler::BuiltKernel (*buildFn)(mlir::MLIRContext &, const Config &, const compiler::Target &),
                        const Config &config) {
  return {reinterpret_cast<const void *>(buildFn), config.key(),
          [buildFn, config](mlir::MLIRContext &ctx, const compiler::Target &t) { return buildFn(ctx, config, t); }};
}
#endif

/// factoryOf for a named program: the same factory, with its stable name.
template <typename F, typename Config> KernelFactory factoryOf(const Program<F> &program, const Config &config) {
#ifdef TK_RUNTIME_ONLY
  KernelFactory f; // no build: the kernel comes from the disk index or not at all
  f.program = program.name;
  f.config = config.key();
#else
  KernelFactory f = factoryOf(program.fn, config);
#endif
  f.programName = std::string(program.name) + "/" + typeid(Config).name();
  return f;
}

} // namespace tk::runtime
