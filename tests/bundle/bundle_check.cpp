// `tk check` through libtk_rt: every entry point and variant of tk.h at the
// small shapes of the operator tables, run on the GPU with the kernels of a
// bundle (no compiler in this process: it links libtk_rt.so, the checks and
// the C++ references, and refuses to run if LLVM or MLIR got mapped in), each
// compared bit for bit with its reference.
//   tk_bundle_check DIR [--only OP] [--sms N]
// DIR is a bundle holding those kernels: `TK_CACHE_DIR=DIR tk check --sms N`
// records them, `tk bundle DIR` adds their cubins. Exits 77 (skipped) without
// a CUDA device; 1 if any case fails, a kernel is missing from the bundle or
// one was not loaded from its cubin (the driver JIT-compiled its PTX).
#include "checks/gpu_session.h"
#include "checks/operator_table.h"
#include "tk/runtime/Context.h"
#include "tk/tk.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

/// The first mapped file whose name says LLVM or MLIR, or "" if none.
std::string compilerMappedIn() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("LLVM") != std::string::npos || line.find("MLIR") != std::string::npos)
      return line.substr(line.find('/') == std::string::npos ? 0 : line.find('/'));
  return "";
}

} // namespace

int main(int argc, char **argv) {
  std::string dir, only;
  int sms = 2;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--sms" && i + 1 < argc)
      sms = std::atoi(argv[++i]);
    else if (dir.empty() && a[0] != '-')
      dir = a;
    else {
      std::fprintf(stderr, "usage: tk_bundle_check DIR [--only OP] [--sms N]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: tk_bundle_check DIR [--only OP] [--sms N]\n");
    return 2;
  }
  setenv("TK_CACHE_DIR", dir.c_str(), 1);
  tk::checks::GpuSession session;
  if (!session.ok()) {
    std::printf("SKIPPED: no CUDA device (%s); the bundle's kernels run on the GPU only\n",
                session.status().message().c_str());
    return 77;
  }
  tk_context ctx;
  if (tk_context_create(&ctx) != TK_SUCCESS || tk_set_num_sms(ctx, sms) != TK_SUCCESS) {
    std::fprintf(stderr, "tk_bundle_check: %s\n", tk_last_error());
    return 1;
  }
  std::printf("GPU: %s, kernels from the bundle %s, persistent grids sized for %d SMs\n", session.device().name.c_str(),
              dir.c_str(), sms);
  tk::checks::SmallCasesRun run = tk::checks::runSmallCases(only, &session, ctx);
  int kernels = 0, fromCubins = 0;
  for (const auto &k : ctx->cache.snapshot()) {
    ++kernels;
    fromCubins += k->cubinFromBundle;
  }
  tk_context_destroy(ctx);
  const std::string compiler = compilerMappedIn();
  std::printf("%d of %d cases bit-exact through libtk_rt; %d of %d kernels loaded from the bundle's cubins; "
              "LLVM or MLIR in this process: %s\n",
              run.ran - run.failures, run.ran, fromCubins, kernels, compiler.empty() ? "none" : compiler.c_str());
  return run.failures || run.ran == 0 || fromCubins != kernels || !compiler.empty() ? 1 : 0;
}
