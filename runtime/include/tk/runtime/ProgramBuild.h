//===- ProgramBuild.h - the compiler's side of a JIT cache miss -----------===//
//
// What JitCache needs of the compiler when neither memory nor the disk index
// names a kernel: the DSL program run (in an MLIR context of the process's
// pool that no other thread uses meanwhile), the content key of the IR it
// built, and its PTX. It is the only
// place the runtime's loading path reaches MLIR, so that a build of the
// runtime without the compiler (one that only reads bundles) replaces this
// file alone.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/Target/CompileOptions.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/runtime/KernelFactory.h"
#include "tk/runtime/Status.h"

#include <memory>
#include <string>

namespace tk::runtime {

class ProgramBuild {
public:
  ProgramBuild();
  ~ProgramBuild();
  /// Runs `factory`'s program for `target`; holds a compiler state (an MLIR
  /// context) from here until this object is destroyed. Builds on other
  /// threads run meanwhile, each in a state of its own.
  Status run(const KernelFactory &factory, const compiler::Target &target, const compiler::CompileOptions &options);
  /// After run(): the disk key of the IR (contentKey() in JitCache.h) and the launch contract.
  const std::string &contentKey() const { return contentKey_; }
  const dsl::KernelSignature &signature() const;
  /// After run(): the PTX of the built IR (which the compile consumes: call it once).
  Status compile(std::string &ptx);

private:
  struct State;
  std::unique_ptr<State> state_;
  std::string contentKey_;
};

} // namespace tk::runtime
