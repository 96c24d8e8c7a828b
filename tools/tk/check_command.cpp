//===- check_command.cpp - tk check: every entry point at small shapes ----===//
//
// Every entry point of tk.h and the variants that take other code paths
// (formats, scale-factor layouts, strides, gathers, clamps, re-quantization):
// the `small` cases of every operator table (checks/*_cases.cpp), at shapes
// small enough for compute-sanitizer's racecheck and for
// AddressSanitizer on the CPU path, each compared bit for bit with its C++
// reference. Persistent grids are sized for a few SMs (--sms) so that each
// block loops over several tiles, as on a full device at large shapes.
// --grid: the spec's GPU test grids instead (on the CPU path too: there it
// meets every GPU case's shapes and edge cases with the launcher's checks).
// --compile-targets T[,T...]|all: every kernel a CPU-path case runs is also
// compiled to PTX for those GPU targets, so a machine with no GPU finds the
// variants that do not lower (layout conflicts, shared memory past a limit);
// with --ptxas each is assembled by ptxas too, and a spill fails the case.
//===----------------------------------------------------------------------===//
#include "tools/tk/commands.h"

#include "checks/operator_table.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/runtime/Context.h"
#include "tk/tk.h"
#include "tools/tk/ptxas.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

namespace tk::tools {

/// Assembles a kernel compiled for another target with ptxas: an error on a
/// ptxas failure or a spilled byte, as `tk compile` has. Empty without ptxas.
static std::function<runtime::Status(const runtime::CompiledKernel &, const compiler::Target &)> assembler() {
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    return {};
  return [ptxas](const runtime::CompiledKernel &k, const compiler::Target &t) -> runtime::Status {
    PtxasReport r = assemblePtx(ptxas, k.ptx, t.name);
    const std::string what = "ptxas for " + t.name + " (" + k.signature.name + ", " + k.config + "): ";
    if (!r.ok)
      return {TK_ERROR_COMPILE, what + r.error};
    if (int spilled = r.spilledBytes())
      return {TK_ERROR_COMPILE, what + std::to_string(spilled) + " bytes spilled"};
    return runtime::Status::ok();
  };
}

int cmdCheck(const std::vector<std::string> &args) {
  int sms = 2;
  std::string only;
  bool control = false, grid = false, assemble = false;
  std::vector<compiler::Target> compileTargets;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--out-of-bounds-control") {
      control = true;
    } else if (args[i] == "--grid") {
      grid = true;
    } else if (args[i] == "--sms" && i + 1 < args.size()) {
      sms = std::atoi(args[++i].c_str());
    } else if (args[i] == "--ptxas") {
      assemble = true;
    } else if (args[i] == "--compile-targets" && i + 1 < args.size()) {
      std::string list = args[++i];
      if (list == "all")
        list = "sm_80,sm_90a,sm_100a";
      for (size_t at = 0; at <= list.size();) {
        size_t end = std::min(list.find(',', at), list.size());
        std::string name = list.substr(at, end - at);
        auto target = compiler::findTarget(name);
        if (!target) {
          std::fprintf(stderr, "tk check --compile-targets: unknown target '%s' (sm_80, sm_90a, sm_100a or all)\n",
                       name.c_str());
          return 2;
        }
        compileTargets.push_back(*target);
        at = end + 1;
      }
    } else if (args[i] == "--only" && i + 1 < args.size()) {
      only = args[++i];
    } else {
      std::fprintf(stderr, "tk check: unknown argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  if (std::string error = checks::checkOnly(only); !error.empty()) {
    std::fprintf(stderr, "tk check --only: %s (tk list prints the operators)\n", error.c_str());
    return 2;
  }
  checks::GpuSession session;
  checks::GpuSession *gpu = session.ok() ? &session : nullptr;
  if (gpu)
    std::printf("GPU: %s, persistent grids sized for %d SMs\n", gpu->device().name.c_str(), sms);
  else
    std::printf("no CUDA device (%s): the CPU path\n", session.status().message().c_str());
  tk_context ctx;
  if (tk_context_create(&ctx) != TK_SUCCESS) {
    std::fprintf(stderr, "tk check: %s\n", tk_last_error());
    return 1;
  }
  if (assemble && compileTargets.empty()) {
    std::fprintf(stderr, "tk check: --ptxas assembles what --compile-targets compiles; name the targets\n");
    tk_context_destroy(ctx);
    return 2;
  }
  ctx->alsoCompileFor = compileTargets;
  if (assemble && !(ctx->onOtherTargetCompiled = assembler())) {
    std::fprintf(stderr, "tk check --ptxas: ptxas not found (install the CUDA toolkit or set TK_PTXAS)\n");
    tk_context_destroy(ctx);
    return 2;
  }
  if (!compileTargets.empty()) {
    std::printf("every kernel the cases run is compiled for");
    for (const auto &t : compileTargets)
      std::printf(" %s", t.name.c_str());
    std::printf(" as well%s\n", gpu ? " (on the CPU path only: this run has a GPU)" : "");
  }
  if (gpu && tk_set_num_sms(ctx, sms) != TK_SUCCESS) {
    std::fprintf(stderr, "tk check: --sms %d: %s\n", sms, tk_last_error());
    tk_context_destroy(ctx);
    return 2;
  }
  if (control) {
    // A caller who hands over freed memory: the input's buffer is freed
    // before the call, so every read the kernel makes is out of bounds. Only
    // for showing that a memory checker sees inside tk's kernels
    // (compute_sanitizer.sh expects memcheck to report it).
    int rc = 2;
    if (gpu) {
      void *out = gpu->alloc(512 * 512 * 2), *x = nullptr;
      {
        checks::GpuSession::Scope freedAtItsEnd(*gpu);
        x = gpu->alloc(512 * 512 * 2);
      }
      tk_tensor xt = checks::deviceTensor(x, TK_BF16, {512, 512}), ot = checks::deviceTensor(out, TK_BF16, {512, 512});
      tk_status st = tk_transpose(ctx, &xt, &ot, nullptr);
      gpu->synchronize();
      std::printf("out-of-bounds control: tk_transpose of a freed 512 KiB buffer: %s\n",
                  st == TK_SUCCESS ? "launched" : tk_last_error());
      rc = st == TK_SUCCESS ? 0 : 1;
    } else {
      std::fprintf(stderr, "tk check: --out-of-bounds-control needs a GPU\n");
    }
    tk_context_destroy(ctx);
    return rc;
  }
  checks::SmallCasesRun run = checks::runSmallCases(only, gpu, ctx, grid);
  tk_context_destroy(ctx);
  std::printf("%d of %d cases bit-exact\n", run.ran - run.failures, run.ran);
  return run.failures || run.ran == 0 ? 1 : 0;
}

} // namespace tk::tools
