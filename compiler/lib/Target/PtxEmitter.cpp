//===- PtxEmitter.cpp - run the pipeline, collect PTX and diagnostics -----===//
#include "tk/compiler/Target/Pipeline.h"

#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tk::compiler {

/// TK_DUMP_IR's folder for one compilation: <root>/<kernel>-<hash of its
/// IR>/<target>, so that kernels, their configurations and their targets
/// each keep their own dump instead of overwriting one folder.
static std::string dumpFolder(mlir::ModuleOp module, const std::string &root, const Target &target) {
  std::string name = "module", text;
  for (tile::KernelOp kernel : module.getOps<tile::KernelOp>()) {
    name = kernel.getSymName().str();
    break;
  }
  llvm::raw_string_ostream os(text);
  module.print(os);
  char hash[9];
  std::snprintf(hash, sizeof hash, "%08x", (unsigned)(llvm::xxh3_64bits(text) & 0xffffffffu));
  std::string folder = root + "/" + name + "-" + hash + "/" + target.name;
  llvm::sys::fs::create_directories(folder); // MLIR's printer makes only the last level
  return folder;
}

bool compileToPtx(mlir::ModuleOp module, const Target &target, const CompileOptions &options, std::string &ptx,
                  std::string &error) {
  mlir::MLIRContext *ctx = module.getContext();
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Remark) {
      llvm::errs() << "tk remark: " << diag.getLocation() << ": " << diag << "\n";
      return mlir::success();
    }
    diagStream << diag.getLocation() << ": " << diag << "\n";
    for (mlir::Diagnostic &note : diag.getNotes())
      diagStream << "  note: " << note.getLocation() << ": " << note << "\n";
    return mlir::success();
  });

  if (std::string problem = options.problem(target); !problem.empty()) {
    error = problem;
    return false;
  }
  mlir::PassManager pm(ctx);
  buildPipeline(pm, target, options);
  // The DSL's module is verified before any pass (a malformed kernel is reported, not compiled: the pass manager
  // verifies only its passes' outputs). Those are verified in debug, sanitizer and fuzzing builds and while
  // dumping IR; a release build trusts its passes, which the lit tests run verified.
  if (mlir::failed(mlir::verify(module))) {
    error = "the kernel's IR is malformed:\n" + diagnostics;
    return false;
  }
#ifndef TK_VERIFY_EACH_PASS
  if (options.dumpIrDir.empty())
    pm.enableVerifier(false);
#endif
  if (!options.dumpIrDir.empty()) {
    ctx->disableMultithreading();
    pm.enableIRPrintingToFileTree([](mlir::Pass *, mlir::Operation *) { return false; },
                                  [](mlir::Pass *, mlir::Operation *) { return true; },
                                  /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false,
                                  /*printAfterOnlyOnFailure=*/false, dumpFolder(module, options.dumpIrDir, target));
  }
  if (options.passTiming) // MLIR's report, on stderr once the pass manager is done
    pm.enableTiming();
  if (mlir::failed(pm.run(module))) {
    error = "compilation for " + target.name + " failed:\n" + diagnostics;
    return false;
  }
  ptx.clear();
  if (auto shared = module->getAttrOfType<mlir::DictionaryAttr>("tk.dynamic_shared_memory"))
    for (mlir::NamedAttribute kernel : shared)
      ptx += std::string(kDynamicSharedMemoryHeader) + kernel.getName().str() + " " +
             std::to_string(llvm::cast<mlir::IntegerAttr>(kernel.getValue()).getInt()) + "\n";
  if (auto dependent = module->getAttrOfType<mlir::ArrayAttr>("tk.dependent_launch"))
    for (mlir::Attribute kernel : dependent)
      ptx += std::string(kDependentLaunchHeader) + llvm::cast<mlir::StringAttr>(kernel).str() + "\n";
  const size_t header = ptx.size();
  module.walk([&](mlir::gpu::BinaryOp binary) {
    for (mlir::Attribute attr : binary.getObjects())
      if (auto object = llvm::dyn_cast<mlir::gpu::ObjectAttr>(attr))
        ptx += object.getObject().getValue().str();
  });
  if (ptx.size() == header) {
    error = "compilation for " + target.name + " produced no PTX";
    return false;
  }
  if (options.printKernelSource)
    llvm::errs() << "// tk: PTX for " << target.name << "\n" << ptx << "\n";
  return true;
}

} // namespace tk::compiler
