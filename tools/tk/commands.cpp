//===- commands.cpp -------------------------------------------------------===//
#include "tools/tk/commands.h"
#include "tools/tk/ptxas.h"

#include "bench/benchmark.h"
#include "bench/gpu_session.h"
#include "bench/per_token_cast_check.h"
#include "bench/cast_back_check.h"
#include "bench/per_block_cast_check.h"
#include "bench/per_channel_cast_check.h"
#include "bench/lossless_check.h"
#include "bench/swiglu_backward_check.h"
#include "bench/swiglu_check.h"
#include "bench/transpose_check.h"
#include "kernels/common/operator_schedule.h"
#include "kernels/registry.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/tk.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <sys/stat.h>

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
  std::string scratch = dir.empty() ? "/tmp" : dir;
  std::printf("%-52s %-8s %10s %5s %6s %6s  %s\n", "kernel", "target", "compile ms", "regs", "spill", "smem",
              "ptxas");
  int failures = 0;
  for (const auto &k : shippedKernels())
    for (const auto &v : k.variants) {
      if (!names.empty() &&
          std::none_of(names.begin(), names.end(), [&](const std::string &n) { return selects(n, k, v); }))
        continue;
      runtime::CompiledKernel compiled;
      runtime::Status s = runtime::compileKernel(v.build, target, compiled);
      if (!s.isOk()) {
        std::printf("%-52s %-8s FAILED: %s\n", v.name.c_str(), target.name.c_str(), s.message().c_str());
        ++failures;
        continue;
      }
      std::string path = scratch + "/" + v.name + (dir.empty() ? "." + target.name + ".tmp.ptx" : ".ptx");
      std::ofstream(path) << compiled.ptx;
      if (ptxas.empty()) {
        std::printf("%-52s %-8s %10.1f %5s %6s %6s  %s\n", v.name.c_str(), target.name.c_str(), compiled.compileMs,
                    "-", "-", "-", "ptxas not found (set TK_PTXAS)");
      } else {
        PtxasReport r = runPtxas(ptxas, path, target.name);
        if (!r.ok) {
          std::printf("%-52s %-8s %10.1f FAILED: %s\n", v.name.c_str(), target.name.c_str(), compiled.compileMs,
                      r.error.c_str());
          ++failures;
        } else {
          std::printf("%-52s %-8s %10.1f %5d %6d %6d  ok\n", v.name.c_str(), target.name.c_str(), compiled.compileMs,
                      r.registers, r.spillStoreBytes + r.spillLoadBytes, r.sharedBytes);
          failures += (r.spillStoreBytes + r.spillLoadBytes) > 0;
        }
      }
      if (dir.empty())
        std::remove(path.c_str());
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
  mkdir(dir.c_str(), 0755);
  return compileTable(all ? std::vector<std::string>{} : names, *target, dir) ? 1 : 0;
}

/// per_token_cast_with_sf_only and _with_precomputed_sf, checked (not timed;
/// `tk bench` times them) on the GPU of `gpu`, or on the CPU path.
static int checkVariants(bench::GpuSession *gpu, tk_context ctx) {
  bench::PerTokenCastCase c = gpu ? bench::PerTokenCastCase{8001, 7168, 128, TK_BF16, TK_ROUND_SF}
                                  : bench::PerTokenCastCase{256, 7168, 128, TK_BF16, TK_ROUND_SF};
  bench::CheckResult r = bench::checkPerTokenVariants(gpu, ctx, c, bench::makeInput(c));
  bool ok = r.exact();
  std::printf("%-16s %-34s %s\n", "+ sf_only, precomputed_sf", bench::describe(c).c_str(),
              r.verdict().c_str());
  return ok ? 0 : 1;
}

/// One checked (and, on a GPU, timed) case as a table row; returns 1 on a failure.
static int printRow(bench::GpuSession *gpu, const std::string &op, const std::string &what,
                    const bench::CheckResult &r, double ceiling) {
  bool ok = r.exact();
  if (gpu) {
    double gbps = r.ms > 0 ? r.bytes / (r.ms * 1e-3) / 1e9 : 0;
    std::printf("%-16s %-34s %-28s %9.1f %8.0f %5.1f%%\n", op.c_str(), what.c_str(),
                r.verdict().c_str(), r.ms * 1e3, gbps, 100.0 * gbps / ceiling);
  } else {
    std::printf("%-16s %-34s %s\n", op.c_str(), what.c_str(), r.verdict().c_str());
  }
  return ok ? 0 : 1;
}

/// The transposes and cast_back, checked (and timed on a GPU) on representative shapes.
static int checkOthers(bench::GpuSession *gpu, tk_context ctx, double ceiling) {
  int failures = 0;
  std::vector<bench::TransposeCase> transposes =
      gpu ? std::vector<bench::TransposeCase>{{8, 4096, 7168, TK_BF16}, {1, 8064, 7168, TK_F8_E4M3, 2 * 7168, false}}
          : std::vector<bench::TransposeCase>{{2, 256, 512, TK_BF16}, {1, 256, 512, TK_F8_E4M3, 1024, false}};
  for (const auto &c : transposes)
    failures += printRow(gpu, c.batched ? "batched_transpose" : "transpose", bench::describe(c),
                         bench::checkTranspose(gpu, ctx, c, gpu != nullptr), ceiling);
  const int64_t m = gpu ? 32768 : 256;
  for (const bench::PerBlockCastCase &c : {bench::PerBlockCastCase{m, 7168, 128, 128, TK_BF16, TK_ROUND_SF},
                                           bench::PerBlockCastCase{m, 7168, 32, 32, TK_F32, TK_ROUND_SF | TK_SF_COL_MAJOR}})
    failures += printRow(gpu, "per_block_cast", bench::describe(c),
                         bench::checkPerBlockCast(gpu, ctx, c, gpu != nullptr), ceiling);
  for (const bench::PerChannelCastCase &c : {bench::PerChannelCastCase{m, 7168, 128, TK_BF16, true, false},
                                             bench::PerChannelCastCase{m, 7168, 32, TK_BF16, false, true}})
    failures += printRow(gpu, c.transposed ? "per_channel_cast_and_transpose" : "per_channel_cast",
                         bench::describe(c), bench::checkPerChannelCast(gpu, ctx, c, gpu != nullptr), ceiling);
  for (const bench::CastBackCase &c : {bench::CastBackCase{m, 7168, 1, 128, TK_BF16},
                                       bench::CastBackCase{m, 7168, 128, 128, TK_F32, false, true}})
    failures += printRow(gpu, "cast_back", bench::describe(c), bench::checkCastBack(gpu, ctx, c, gpu != nullptr),
                         ceiling);
  const bench::LosslessCase lossless{m, 7168, 1, 32, 1, 128, true, true};
  failures += printRow(gpu, "per_block_cast_lossless", bench::describe(lossless),
                       bench::checkPerBlockLossless(gpu, ctx, lossless, gpu != nullptr), ceiling);
  // The row gather, and the SwiGLU operators: on a GPU their reference's
  // expf is CUDA's, from the nvcc-compiled oracle; on the CPU the C library's.
  bench::PerChannelCastCase gathered{gpu ? 4001 : 200, 7168, 128, TK_BF16, true, false};
  gathered.gatherTopk = 6;
  failures += printRow(gpu, "per_channel_cast_fused", bench::describe(gathered),
                       bench::checkPerChannelCast(gpu, ctx, gathered, gpu != nullptr), ceiling);
  std::optional<bench::ExpTable> deviceExp;
  bench::CheckResult noOracle;
  if (gpu) {
    try {
      deviceExp.emplace(bench::deviceExpTable(*gpu, bench::bf16SwigluExpArguments()));
    } catch (const std::exception &e) {
      noOracle.status = TK_ERROR_UNSUPPORTED, noOracle.error = std::string("no expf oracle: ") + e.what();
    }
  }
  const bool haveExp = !gpu || deviceExp;
  const bench::ExpTable *exp = deviceExp ? &*deviceExp : nullptr;
  bench::PerChannelCastCase perChannel{m, 7168, 128, TK_BF16, true, true};
  perChannel.swiglu = true, perChannel.clamp = 0.5f;
  failures += printRow(gpu, "swiglu_forward_and_per_channel_cast_and_transpose", bench::describe(perChannel),
                       haveExp ? bench::checkPerChannelCast(gpu, ctx, perChannel, gpu != nullptr, nullptr, exp)
                               : noOracle,
                       ceiling);
  bench::SwigluCastCase perToken{2048, 128};
  perToken.plainRows = gpu ? 65536 : 256, perToken.weights = true, perToken.clamp = 0.5f, perToken.count = true;
  perToken.flags = TK_SF_COL_MAJOR | TK_ROUND_SF;
  failures += printRow(gpu, "swiglu_forward_and_per_token_cast", bench::describe(perToken),
                       haveExp ? bench::checkSwigluPerTokenCast(gpu, ctx, perToken, gpu != nullptr, exp) : noOracle,
                       ceiling);
  bench::SwigluBackwardCase backward{7168, 128, true, {}};
  backward.topk = 8, backward.tokens = gpu ? 4001 : 100;
  failures += printRow(gpu, "swiglu_backward_and_per_token_cast", bench::describe(backward),
                       haveExp ? bench::checkSwigluBackward(gpu, ctx, backward, gpu != nullptr) : noOracle, ceiling);
  return failures;
}

static int runOnGpu(bench::GpuSession &gpu, bool quick) {
  const auto &dev = gpu.device();
  auto target = compiler::targetForDevice(dev.ccMajor, dev.ccMinor);
  std::printf("GPU: %s, compute capability %d.%d, %d SMs, driver %d -> target %s\n", dev.name.c_str(), dev.ccMajor,
              dev.ccMinor, dev.smCount, dev.driverVersion, target ? target->name.c_str() : "none");
  double ceiling = gpu.copyGBps(size_t(1) << 31);
  std::printf("device-to-device copy ceiling (2 GiB, read+write): %.0f GB/s\n\n", ceiling);
  tk_context ctx;
  tk_context_create(&ctx);
  std::vector<bench::PerTokenCastCase> cases = {
      {32768, 7168, 128, TK_BF16, 0},
      {32768, 7168, 128, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF},
      {32768, 7168, 128, TK_F32, TK_ROUND_SF},
      {32768, 2560, 32, TK_BF16, TK_ROUND_SF},
      {16384, 7168, 7168, TK_BF16, 0},
  };
  if (quick)
    cases.resize(1);
  int failures = 0;
  std::printf("%-16s %-34s %-28s %9s %8s %6s\n", "op", "case", "check vs reference", "us", "GB/s", "ceil");
  for (const auto &c : cases) {
    bench::CheckResult r = bench::checkPerTokenCast(&gpu, ctx, c, bench::makeInput(c), /*time=*/true);
    failures += printRow(&gpu, "per_token_cast", bench::describe(c), r, ceiling);
  }
  failures += checkVariants(&gpu, ctx);
  failures += checkOthers(&gpu, ctx, ceiling);
  tk_context_destroy(ctx);
  return failures ? 1 : 0;
}

/// Without a GPU: the same operators on the CPU path, checked against the reference.
static int runOnCpu(bool quick) {
  std::printf("Running every shipped kernel on the CPU path (tile-lower-to-cpu + MLIR ExecutionEngine):\n\n");
  tk_context ctx;
  tk_context_create(&ctx);
  std::vector<bench::PerTokenCastCase> cases = {
      {256, 7168, 128, TK_BF16, 0},
      {256, 7168, 128, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF},
      {256, 7168, 128, TK_F32, TK_ROUND_SF},
      {256, 2560, 32, TK_BF16, TK_ROUND_SF},
      {64, 7168, 7168, TK_BF16, 0},
  };
  if (quick)
    cases.resize(1);
  int failures = 0;
  std::printf("%-16s %-34s %-28s %9s\n", "op", "case", "check vs reference", "cpu ms");
  for (const auto &c : cases) {
    bench::CheckResult r = bench::checkPerTokenCast(nullptr, ctx, c, bench::makeInput(c), /*time=*/true);
    bool ok = r.exact();
    failures += !ok;
    std::printf("%-16s %-34s %-28s %9.2f\n", "per_token_cast", bench::describe(c).c_str(),
                r.verdict().c_str(), r.ms);
  }
  failures += checkVariants(nullptr, ctx);
  failures += checkOthers(nullptr, ctx, 0);
  tk_context_destroy(ctx);
  return failures;
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
    bench::GpuSession gpu;
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
