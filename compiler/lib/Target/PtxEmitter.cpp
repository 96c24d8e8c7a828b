//===- PtxEmitter.cpp - run the pipeline, collect PTX and diagnostics -----===//
#include "tk/compiler/Target/Pipeline.h"

#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tk::compiler {

CompileOptions CompileOptions::fromEnvironment() {
  CompileOptions o;
  if (const char *dir = std::getenv("TK_DUMP_IR"))
    o.dumpIrDir = dir;
  if (const char *p = std::getenv("TK_PRINT_KERNEL_SOURCE"))
    o.printKernelSource = std::string(p) == "1";
  if (const char *r = std::getenv("TK_REMARKS"))
    o.remarks = std::string(r) == "1";
  if (const char *a = std::getenv("TK_ABLATE")) {
    std::string list = a;
    for (size_t start = 0; start <= list.size();) {
      size_t end = list.find(',', start);
      if (end == std::string::npos)
        end = list.size();
      if (end > start)
        o.ablate.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  if (const char *m = std::getenv("TK_MIN_BLOCKS_PER_SM"))
    o.minBlocksPerSm = std::atoll(m);
  if (const char *e = std::getenv("TK_COPY_ENGINE"); e && *e)
    o.copyEngine = e;
  if (const char *g = std::getenv("TK_LOGISTIC_GUARD"))
    o.logisticGuard = std::atoll(g);
  if (const char *s = std::getenv("TK_SWIZZLE_BYTES"); s && *s)
    o.swizzleBytes = std::atoll(s);
  return o;
}

const std::vector<std::string> &CompileOptions::ablations() {
  static const std::vector<std::string> names = {"vectorize",        "fp8-hardware", "pipeline", "swizzle",
                                                  "layout-inference", "fusion",       "loop-thread-index",
                                                  "logistic-division"};
  return names;
}

std::string CompileOptions::problem(const Target &target) const {
  for (const std::string &a : ablate)
    if (std::find(ablations().begin(), ablations().end(), a) == ablations().end()) {
      std::string known;
      for (const std::string &k : ablations())
        known += (known.empty() ? " " : ", ") + k;
      return "TK_ABLATE: unknown pass '" + a + "' (known:" + known + ")";
    }
  if (copyEngine != "cp.async" && copyEngine != "bulk")
    return "TK_COPY_ENGINE must be cp.async or bulk, got '" + copyEngine + "'";
  if (copyEngine == "bulk" && target.computeCapability < 90)
    return "TK_COPY_ENGINE=bulk needs sm_90a or newer (the bulk copy engine and mbarrier transactions); the "
           "target is " + target.name;
  if (logisticGuard < 0 || logisticGuard > 64 || (logisticGuard & (logisticGuard - 1)))
    return "TK_LOGISTIC_GUARD must be a power of two from 1 to 64 (0: all of a thread's values), got " +
           std::to_string(logisticGuard);
  if (swizzleBytes != 0 && swizzleBytes != 1 && swizzleBytes != 2 && swizzleBytes != 4)
    return "TK_SWIZZLE_BYTES must be 1, 2 or 4 (0 or unset: the default), got " + std::to_string(swizzleBytes);
  if (minBlocksPerSm < 0 || minBlocksPerSm > 32)
    return "TK_MIN_BLOCKS_PER_SM must be 0 to 32, got " + std::to_string(minBlocksPerSm);
  return "";
}

std::string CompileOptions::cacheTag() const {
  std::string tag;
  for (const std::string &a : ablate)
    tag += (tag.empty() ? "ablate=" : ",") + a;
  auto add = [&](const std::string &part) { tag += (tag.empty() ? "" : ";") + part; };
  if (minBlocksPerSm > 0)
    add("minblocks=" + std::to_string(minBlocksPerSm));
  if (copyEngine != "cp.async")
    add("engine=" + copyEngine);
  if (logisticGuard > 0)
    add("lguard=" + std::to_string(logisticGuard));
  if (swizzleBytes > 0)
    add("swizzlebytes=" + std::to_string(swizzleBytes));
  return tag;
}

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

/// PTX comment lines "// tk.dynamic_shared_memory <kernel> <bytes>".
static constexpr const char *kDynamicSharedHeader = "// tk.dynamic_shared_memory ";

int64_t dynamicSharedBytes(const std::string &ptx, const std::string &kernel) {
  const std::string line = kDynamicSharedHeader + kernel + " ";
  // The header lines come first; the PTX proper starts with LLVM's comments.
  for (size_t at = 0; ptx.compare(at, 3, "// ") == 0;) {
    if (ptx.compare(at, line.size(), line) == 0)
      return std::atoll(ptx.c_str() + at + line.size());
    size_t end = ptx.find('\n', at);
    if (end == std::string::npos)
      break;
    at = end + 1;
  }
  return 0;
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
  if (!options.dumpIrDir.empty()) {
    ctx->disableMultithreading();
    pm.enableIRPrintingToFileTree([](mlir::Pass *, mlir::Operation *) { return false; },
                                  [](mlir::Pass *, mlir::Operation *) { return true; },
                                  /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false,
                                  /*printAfterOnlyOnFailure=*/false, dumpFolder(module, options.dumpIrDir, target));
  }
  if (mlir::failed(pm.run(module))) {
    error = "compilation for " + target.name + " failed:\n" + diagnostics;
    return false;
  }
  ptx.clear();
  if (auto shared = module->getAttrOfType<mlir::DictionaryAttr>("tk.dynamic_shared_memory"))
    for (mlir::NamedAttribute kernel : shared)
      ptx += std::string(kDynamicSharedHeader) + kernel.getName().str() + " " +
             std::to_string(llvm::cast<mlir::IntegerAttr>(kernel.getValue()).getInt()) + "\n";
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
