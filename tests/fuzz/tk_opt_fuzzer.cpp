//===- tk_opt_fuzzer.cpp - tk-opt's parser, verifier and pipelines --------===//
//
// The first byte picks a pipeline, the rest is tile IR text: refused when it
// nests too deep (InputLimits.h), parsed, verified, and when valid run
// through the pipeline. Any diagnostic is fine; a crash, an LLVM fatal error,
// an assertion or a hang is a finding. The corpus comes from the lit tests
// (make_corpus.py).
//===----------------------------------------------------------------------===//
#include "tk/compiler/InputLimits.h"
#include "tk/compiler/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <cstdlib>

namespace {

const char *const kPipelines[] = {
    "builtin.module(tile-assign-layouts)",
    "builtin.module(tile-assign-layouts,tile-lower-to-gpu,canonicalize)",
    "builtin.module(tile-to-ptx{target=sm_90a})",
    "builtin.module(tile-to-ptx{target=sm_80})",
    "builtin.module(tile-lower-to-cpu)",
    "builtin.module(tile-assign-layouts,tile-lower-to-cpu,canonicalize)",
    "builtin.module(tile-to-cpu-llvm)",
    "builtin.module(tile-pipeline-copies,tile-assign-layouts,tile-lower-to-gpu,canonicalize)",
    "builtin.module(tile-to-ptx{target=sm_100a copy-engine=bulk})",
};
constexpr size_t kNumPipelines = sizeof(kPipelines) / sizeof(kPipelines[0]);

mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *r = [] {
    auto *reg = new mlir::DialectRegistry;
    tk::compiler::registerDialects(*reg);
    tk::compiler::registerPasses();
    return reg;
  }();
  return *r;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  mlir::MLIRContext ctx(registry(), mlir::MLIRContext::Threading::DISABLED);
  static const bool verbose = std::getenv("TK_FUZZ_VERBOSE") != nullptr; // print the diagnostics
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &d) {
    if (verbose)
      llvm::errs() << d << "\n";
    return mlir::success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.setDiagHandler([](const llvm::SMDiagnostic &d, void *) {
    if (verbose)
      d.print("tk_opt_fuzzer", llvm::errs());
  });
  const unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(reinterpret_cast<const char *>(data) + 1, size - 1),
                                           "fuzz"),
      llvm::SMLoc());
  if (!tk::compiler::checkNestingDepth(sourceMgr, id))
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &ctx);
  if (!module || mlir::failed(mlir::verify(*module))) {
    if (verbose)
      llvm::errs() << "tk_opt_fuzzer: " << (module ? "does not verify\n" : "does not parse\n");
    return 0;
  }
  mlir::PassManager pm(&ctx);
  if (mlir::failed(mlir::parsePassPipeline(kPipelines[data[0] % kNumPipelines], pm))) {
    llvm::errs() << "tk_opt_fuzzer: pipeline " << kPipelines[data[0] % kNumPipelines] << " does not parse\n";
    std::abort();
  }
  const bool ok = mlir::succeeded(pm.run(*module));
  if (verbose)
    llvm::errs() << "tk_opt_fuzzer: " << kPipelines[data[0] % kNumPipelines] << (ok ? " succeeded\n" : " failed\n");
  return 0;
}
