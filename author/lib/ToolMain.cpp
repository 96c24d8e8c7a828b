//===- ToolMain.cpp - `tk`-style commands over a program's own kernels ----===//
//
// The shipped operators' `tk list` / `tk compile` / `tk run`, for kernels a
// program registered with tk::registerKernel: the same PTX and ptxas report
// per variant and target, without the kernels being part of tk's tree.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Target/Pipeline.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/dsl.hpp"
#include "tk/runtime/JitCache.h"
#include "tools/tk/output_directory.h"
#include "tools/tk/ptxas.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

namespace tk {

namespace {

int usage(const char *prog, FILE *to) {
  std::fprintf(to,
               "usage:\n"
               "  %s list\n"
               "  %s compile (--all | NAME...) [--target sm_80|sm_90a|sm_100a]... -o DIR\n"
               "  %s run [NAME...]\n",
               prog, prog, prog);
  return to == stderr ? 2 : 0;
}

bool selects(const std::vector<std::string> &names, const UserKernel &k, const std::string &variant) {
  return names.empty() || std::find(names.begin(), names.end(), k.name) != names.end() ||
         std::find(names.begin(), names.end(), variant) != names.end();
}

/// An error for a name that selects nothing.
bool unknownName(const char *prog, const std::vector<std::string> &names) {
  for (const std::string &n : names) {
    bool known = false;
    for (const UserKernel &k : registeredKernels()) {
      known |= k.name == n;
      for (const auto &v : k.variants)
        known |= v.first == n;
    }
    if (!known) {
      std::fprintf(stderr, "%s: no registered kernel or variant is named '%s' (`%s list` names them)\n", prog,
                   n.c_str(), prog);
      return true;
    }
  }
  return false;
}

int list() {
  for (const UserKernel &k : registeredKernels()) {
    std::printf("%-32s %s\n", k.name.c_str(), k.summary.c_str());
    for (const auto &v : k.variants)
      std::printf("    %s\n", v.first.c_str());
  }
  return 0;
}

/// One variant for one target: DIR/<variant>.<target>.ptx and a table row.
/// Returns 1 on a failure (compile, ptxas, or spills).
int compileOne(const std::string &variant, const KernelFactory &f, const compiler::Target &target,
               const std::string &dir, const std::string &ptxas) {
  runtime::CompiledKernel out;
  runtime::Status s = runtime::compileKernel(f, target, out);
  if (!s.isOk()) {
    std::printf("%-44s %-8s FAILED: %s\n", variant.c_str(), target.name.c_str(), s.message().c_str());
    return 1;
  }
  const std::string path = dir + "/" + variant + "." + target.name + ".ptx";
  std::ofstream file(path);
  if (!(file << out.ptx) || !(file.flush())) {
    std::printf("%-44s %-8s FAILED: cannot write %s\n", variant.c_str(), target.name.c_str(), path.c_str());
    return 1;
  }
  file.close();
  if (ptxas.empty()) {
    std::printf("%-44s %-8s %10.1f %5s %6s %6s  %s\n", variant.c_str(), target.name.c_str(), out.compileMs, "-", "-",
                "-", "ptxas not found (set TK_PTXAS)");
    return 0;
  }
  tools::PtxasReport r = tools::runPtxas(ptxas, path, target.name);
  if (!r.ok) {
    std::printf("%-44s %-8s %10.1f FAILED: %s\n", variant.c_str(), target.name.c_str(), out.compileMs, r.error.c_str());
    return 1;
  }
  const int64_t shared = r.sharedBytes + compiler::dynamicSharedBytes(out.ptx, out.signature.name);
  const int spills = r.spillStoreBytes + r.spillLoadBytes;
  std::printf("%-44s %-8s %10.1f %5d %6d %6lld  %s\n", variant.c_str(), target.name.c_str(), out.compileMs, r.registers,
              spills, (long long)shared, spills ? "spills" : "ok");
  return spills > 0;
}

int compile(const char *prog, const std::vector<std::string> &args) {
  std::vector<std::string> names, targets;
  std::string dir;
  bool all = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--all")
      all = true;
    else if (args[i] == "--target" && i + 1 < args.size())
      targets.push_back(args[++i]);
    else if (args[i] == "-o" && i + 1 < args.size())
      dir = args[++i];
    else if (!args[i].empty() && args[i][0] != '-')
      names.push_back(args[i]);
    else {
      std::fprintf(stderr, "%s compile: unknown argument '%s'\n", prog, args[i].c_str());
      return 2;
    }
  }
  if (all == !names.empty()) {
    std::fprintf(stderr, "%s compile: name kernels or pass --all (not both)\n", prog);
    return 2;
  }
  if (dir.empty()) {
    std::fprintf(stderr, "%s compile: -o DIR is required\n", prog);
    return 2;
  }
  if (unknownName(prog, names))
    return 2;
  if (targets.empty())
    targets = {"sm_80", "sm_90a", "sm_100a"};
  for (const std::string &t : targets)
    if (!compiler::findTarget(t)) {
      std::fprintf(stderr, "%s compile: unknown target '%s' (sm_80, sm_90a, sm_100a)\n", prog, t.c_str());
      return 2;
    }
  if (!tools::makeDirectory(std::string(prog) + " compile", dir))
    return 2;
  const std::string ptxas = tools::findPtxas();
  std::printf("%-44s %-8s %10s %5s %6s %6s  %s\n", "variant", "target", "compile ms", "regs", "spill", "smem", "ptxas");
  int failures = 0;
  for (const UserKernel &k : registeredKernels())
    for (const auto &[variant, factory] : k.variants)
      if (selects(names, k, variant))
        for (const std::string &t : targets)
          failures += compileOne(variant, factory, *compiler::findTarget(t), dir, ptxas);
  return failures ? 1 : 0;
}

int run(const char *prog, const std::vector<std::string> &names) {
  if (unknownName(prog, names))
    return 2;
  tk_context ctx = nullptr;
  if (tk_context_create(&ctx) != TK_SUCCESS) {
    std::fprintf(stderr, "%s run: %s\n", prog, tk_last_error());
    return 1;
  }
  int failures = 0, ran = 0;
  for (const UserKernel &k : registeredKernels()) {
    bool named = names.empty();
    for (const auto &v : k.variants)
      named |= selects(names, k, v.first); // a variant's name runs its kernel's check
    if (!named)
      continue;
    if (!k.check) {
      std::printf("%-32s no check registered\n", k.name.c_str());
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    std::string error;
    try {
      error = k.check(ctx);
    } catch (const std::exception &e) {
      error = std::string("threw: ") + e.what();
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-32s %-8s %9.1f ms%s%s\n", k.name.c_str(), error.empty() ? "ok" : "FAILED", ms,
                error.empty() ? "" : ": ", error.c_str());
    failures += !error.empty();
    ++ran;
  }
  tk_context_destroy(ctx);
  if (!ran) {
    std::fprintf(stderr, "%s run: no registered kernel has a check\n", prog);
    return 1;
  }
  return failures ? 1 : 0;
}

} // namespace

int toolMain(int argc, char **argv) {
  const char *prog = argc > 0 ? argv[0] : "tk-kernels";
  if (argc < 2)
    return usage(prog, stderr);
  std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "-h" || cmd == "--help" || cmd == "help")
    return usage(prog, stdout);
  if (cmd == "list")
    return args.empty() ? list() : usage(prog, stderr);
  if (cmd == "compile")
    return compile(prog, args);
  if (cmd == "run")
    return run(prog, args);
  std::fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd.c_str());
  return usage(prog, stderr);
}

} // namespace tk
