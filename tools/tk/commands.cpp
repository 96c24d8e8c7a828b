//===- commands.cpp -------------------------------------------------------===//
#include "tools/tk/commands.h"
#include "tools/tk/output_directory.h"
#include "tools/tk/ptxas.h"

#include "bench/benchmark.h"
#include "checks/operator_table.h"
#include "kernels/common/operator_schedule.h"
#include "kernels/registry.h"
#include "tk/compiler/Target/Pipeline.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/tk.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

namespace tk::tools {

using kernels::shippedKernels;

int cmdVersion() {
  std::printf("tk %s\n", tk_version());
  return 0;
}

int cmdList(const std::vector<std::string> &args) {
  if (!args.empty()) {
    std::fprintf(stderr, "tk list: takes no arguments, got '%s'\n", args[0].c_str());
    return 2;
  }
  for (const auto &k : shippedKernels()) {
    std::printf("%-28s %-10s %-28s %s\n", k.name.c_str(), k.family.c_str(), k.entry.c_str(), k.summary.c_str());
    for (const auto &v : k.variants)
      std::printf("    %s\n", v.name.c_str());
  }
  return 0;
}

/// True when `name` selects variant `v` of kernel `k`: its kernel's name
/// (every variant) or its own.
static bool selects(const std::string &name, const kernels::ShippedKernel &k, const kernels::KernelVariant &v) {
  return name == k.name || name == v.name;
}

/// Compiles every selected variant for `target`, writes DIR/<variant>.ptx when
/// `dir` is set, and prints the resource table. Returns the failure count.
static int compileTable(const std::vector<std::string> &names, const compiler::Target &target, const std::string &dir) {
  std::string ptxas = findPtxas();
  std::printf("%-52s %-8s %10s %5s %6s %6s  %s\n", "kernel", "target", "compile ms", "regs", "spill", "smem",
              "ptxas");
  int failures = 0;
  for (const auto &k : shippedKernels())
    for (const auto &v : k.variants) {
      if (!names.empty() &&
          std::none_of(names.begin(), names.end(), [&](const std::string &n) { return selects(n, k, v); }))
        continue;
      if (std::string why = v.whyNot(target); !why.empty()) {
        std::printf("%-52s %-8s skipped: %s\n", v.name.c_str(), target.name.c_str(), why.c_str());
        continue;
      }
      runtime::CompiledKernel compiled;
      runtime::Status s = runtime::compileKernel(v.build, target, compiled);
      if (!s.isOk()) {
        std::printf("%-52s %-8s FAILED: %s\n", v.name.c_str(), target.name.c_str(), s.message().c_str());
        ++failures;
        continue;
      }
      const std::string kept = dir.empty() ? "" : dir + "/" + v.name + ".ptx";
      if (!kept.empty())
        std::ofstream(kept) << compiled.ptx;
      if (ptxas.empty()) {
        std::printf("%-52s %-8s %10.1f %5s %6s %6s  %s\n", v.name.c_str(), target.name.c_str(), compiled.compileMs,
                    "-", "-", "-", "ptxas not found (set TK_PTXAS)");
        continue;
      }
      // ptxas reads the file kept in DIR, so that its messages name a file that is there.
      PtxasReport r = kept.empty() ? assemblePtx(ptxas, compiled.ptx, target.name) : runPtxas(ptxas, kept, target.name);
      if (!r.ok) {
        std::printf("%-52s %-8s %10.1f FAILED: %s\n", v.name.c_str(), target.name.c_str(), compiled.compileMs,
                    r.error.c_str());
        ++failures;
        continue;
      }
      // ptxas counts the static shared memory; past 48 KB it is dynamic (declared in the PTX's header).
      const int64_t shared = r.sharedBytes + compiler::dynamicSharedBytes(compiled.ptx, compiled.signature.name);
      std::printf("%-52s %-8s %10.1f %5d %6d %6lld  ok\n", v.name.c_str(), target.name.c_str(), compiled.compileMs,
                  r.registers, r.spilledBytes(), (long long)shared);
      failures += r.spilledBytes() > 0;
    }
  return failures;
}

int cmdCompile(const std::vector<std::string> &args) {
  std::vector<std::string> names;
  std::string targetName = "sm_90a", dir;
  bool all = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--all")
      all = true;
    else if (args[i] == "--no-table") // the heuristic's schedules (a refactor's guard compares those)
      kernels::replaceTuningTable("", "--no-table");
    else if (args[i] == "--target" && i + 1 < args.size())
      targetName = args[++i];
    else if (args[i] == "-o" && i + 1 < args.size())
      dir = args[++i];
    else if (!args[i].empty() && args[i][0] != '-')
      names.push_back(args[i]);
    else {
      std::fprintf(stderr, "tk compile: unknown argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  if (!all && names.empty()) {
    std::fprintf(stderr, "tk compile: name kernels or pass --all\n");
    return 2;
  }
  for (const auto &name : names) {
    bool known = false;
    for (const auto &k : shippedKernels())
      for (const auto &v : k.variants)
        known |= selects(name, k, v);
    if (!known) {
      std::fprintf(stderr, "tk compile: no shipped kernel or variant is named '%s' (`tk list` names them)\n",
                   name.c_str());
      return 2;
    }
  }
  auto target = compiler::findTarget(targetName);
  if (!target) {
    std::fprintf(stderr, "tk compile: unknown target '%s' (sm_80, sm_90a, sm_100a)\n", targetName.c_str());
    return 2;
  }
  if (dir.empty()) {
    std::fprintf(stderr, "tk compile: -o DIR is required\n");
    return 2;
  }
  if (!makeDirectory("tk compile", dir))
    return 2;
  return compileTable(all ? std::vector<std::string>{} : names, *target, dir) ? 1 : 0;
}

/// One checked (and, on a GPU, timed) case as a table row; returns 1 on a failure.
static int printRow(checks::GpuSession *gpu, const std::string &op, const std::string &what,
                    const checks::CheckResult &r, double ceiling) {
  if (gpu) {
    double gbps = r.ms > 0 ? r.bytes / (r.ms * 1e-3) / 1e9 : 0;
    std::printf("%-34s %-40s %-28s %9.1f %8.0f %5.1f%%\n", op.c_str(), what.c_str(), r.verdict().c_str(),
                r.ms * 1e3, gbps, 100.0 * gbps / ceiling);
  } else {
    // Only some check routines time their CPU call; the others show no time rather than 0.
    const std::string ms = r.ms > 0 ? std::to_string(r.ms).substr(0, std::to_string(r.ms).find('.') + 3) : "-";
    std::printf("%-34s %-40s %-28s %9s\n", op.c_str(), what.c_str(), r.verdict().c_str(), ms.c_str());
  }
  std::fflush(stdout);
  return r.exact() ? 0 : 1;
}

/// Every operator table's first case, checked against the reference and
/// timed: on a GPU its first benchmark row, on the CPU path its first small
/// case. --quick: the first operator only.
static int runTables(checks::GpuSession *gpu, bool quick, double ceiling) {
  tk_context ctx;
  if (tk_context_create(&ctx) != TK_SUCCESS) {
    std::fprintf(stderr, "tk run: %s\n", tk_last_error());
    return 1;
  }
  std::printf("%-34s %-40s %-28s %9s", "op", "case", "check vs reference", gpu ? "us" : "cpu ms");
  std::printf(gpu ? " %8s %6s\n" : "\n", "GB/s", "ceil");
  int failures = 0;
  for (const checks::OperatorTable &table : checks::operatorTables()) {
    std::vector<checks::TableCase> cases = gpu ? table.bench({}) : table.small;
    if (cases.empty())
      continue;
    failures += printRow(gpu, table.op, cases[0].described, checks::runCase(cases[0], gpu, ctx, /*time=*/true),
                         ceiling);
    if (quick)
      break;
  }
  tk_context_destroy(ctx);
  return failures;
}

static int runOnGpu(checks::GpuSession &gpu, bool quick) {
  const auto &dev = gpu.device();
  auto target = compiler::targetForDevice(dev.ccMajor, dev.ccMinor);
  std::printf("GPU: %s, compute capability %d.%d, %d SMs, driver %d -> target %s\n", dev.name.c_str(), dev.ccMajor,
              dev.ccMinor, dev.smCount, dev.driverVersion, target ? target->name.c_str() : "none");
  double ceiling = gpu.copyGBps(size_t(1) << 31);
  std::printf("device-to-device copy ceiling (2 GiB, read+write): %.0f GB/s\n\n", ceiling);
  return runTables(&gpu, quick, ceiling) ? 1 : 0;
}

/// Without a GPU: the same operators on the CPU path, checked against the reference.
static int runOnCpu(bool quick) {
  std::printf("Running every shipped operator on the CPU path (tile-lower-to-cpu + MLIR ExecutionEngine):\n\n");
  return runTables(nullptr, quick, 0);
}

int cmdRun(const std::vector<std::string> &args) {
  bool quick = false;
  for (const auto &a : args) {
    if (a != "--quick") {
      std::fprintf(stderr, "tk run: unknown argument '%s'\n", a.c_str());
      return 2;
    }
    quick = true;
  }
  std::printf("tk %s\n", tk_version());
  {
    checks::GpuSession gpu;
    if (gpu.ok())
      return runOnGpu(gpu, quick);
    std::printf("no CUDA device: %s\n", gpu.status().message().c_str());
  }
  int failures = runOnCpu(quick);
  std::printf("\nEvery shipped kernel compiled for each GPU target (PTX assembled by ptxas):\n\n");
  for (const auto &t : compiler::supportedTargets())
    failures += compileTable({}, t, "");
  return failures ? 1 : 0;
}

} // namespace tk::tools
