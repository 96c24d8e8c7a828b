//===- first_call.cpp - `tk bench --first-call` ---------------------------===//
#include "bench/first_call.h"
#include "checks/operator_table.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/EntryClock.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace tk::bench {

using namespace tk::checks;

namespace {

constexpr double kWarmTargetMs = 5, kColdTargetMsPerKernel = 100;

/// What one child measured.
struct Child {
  bool ok = false;
  std::string error;
  double firstMs = 0, secondMs = 0;
  double compileMs = 0, loadMs = 0; ///< summed over the kernels the process compiled (DSL -> PTX) and loaded
  int kernels = 0, ptxFromDisk = 0, fromIndex = 0, fromBundle = 0;
  double overheadMs() const { return firstMs - secondMs; }
};

std::string selfPath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, (size_t)n) : "tk";
}

/// One child process's first call of `op` with tk's disk cache in
/// `cacheDir`. The driver's own JIT cache is off, or (`driverCache`) kept in
/// cacheDir/nv: not the user's ~/.nv/ComputeCache either way.
Child runChild(const std::string &op, const std::string &cacheDir, bool driverCache = false) {
  Child c;
  const std::string driver =
      driverCache ? "CUDA_CACHE_PATH='" + cacheDir + "/nv' CUDA_CACHE_DISABLE=0 " : "CUDA_CACHE_DISABLE=1 ";
  const std::string cmd =
      driver + "TK_CACHE_DIR='" + cacheDir + "' '" + selfPath() + "' bench --first-call-child " + op;
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) {
    c.error = "could not start " + cmd;
    return c;
  }
  std::string out;
  char line[1024];
  while (std::fgets(line, sizeof(line), p))
    out += line;
  int rc = pclose(p);
  if (std::sscanf(out.c_str(),
                  "first_ms=%lf second_ms=%lf kernels=%d ptx_from_disk=%d from_index=%d from_bundle=%d "
                  "compile_ms=%lf load_ms=%lf",
                  &c.firstMs, &c.secondMs, &c.kernels, &c.ptxFromDisk, &c.fromIndex, &c.fromBundle, &c.compileMs,
                  &c.loadMs) == 8 &&
      rc == 0)
    c.ok = true;
  else
    c.error = out.empty() ? "exit status " + std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : rc)
                          : out.substr(0, out.find('\n'));
  return c;
}

/// Removes `dir` and what is in it (the driver's cache is a tree).
void removeAll(const std::string &dir) { (void)std::system(("rm -rf '" + dir + "'").c_str()); }

} // namespace

int runFirstCallChild(const std::string &op) {
  const OperatorTable *table = findTable(op);
  if (!table || table->small.empty()) {
    std::printf("no small case for '%s'\n", op.c_str());
    return 2;
  }
  GpuSession gpu;
  if (!gpu.ok()) {
    std::printf("needs a CUDA device: %s\n", gpu.status().message().c_str());
    return 1;
  }
  tk_context ctx;
  if (tk_context_create(&ctx) != TK_SUCCESS || !ctx->ensureDevice().isOk()) {
    std::printf("%s\n", tk_last_error());
    return 1;
  }
  { // the device's allocator warmed up: not the operator's first call
    GpuSession::Scope scope(gpu);
    gpu.alloc(64 << 20);
  }
  // Only the time inside tk's entry points counts: the check's own first-use
  // work (inputs, references, the expf oracle's table) is not the call's.
  const TableCase &c = table->small[0];
  double t0 = runtime::entryMs();
  CheckResult first = runCase(c, &gpu, ctx, /*time=*/false);
  const double firstMs = runtime::entryMs() - t0;
  t0 = runtime::entryMs();
  CheckResult second = runCase(c, &gpu, ctx, /*time=*/false);
  const double secondMs = runtime::entryMs() - t0;
  if (!first.exact() || !second.exact()) {
    std::printf("the case failed its check: %s\n", (first.exact() ? second : first).verdict().c_str());
    return 1;
  }
  int kernels = 0, ptx = 0, indexed = 0, bundled = 0;
  double compileMs = 0, loadMs = 0;
  for (const auto &k : ctx->cache.snapshot()) {
    ++kernels;
    ptx += k->fromDisk;
    indexed += k->fromIndex;
    bundled += k->cubinFromBundle;
    compileMs += k->compileMs;
    loadMs += k->loadMs;
  }
  tk_context_destroy(ctx);
  std::printf("first_ms=%.3f second_ms=%.3f kernels=%d ptx_from_disk=%d from_index=%d from_bundle=%d compile_ms=%.3f "
              "load_ms=%.3f\n",
              firstMs, secondMs, kernels, ptx, indexed, bundled, compileMs, loadMs);
  return 0;
}

/// --bundle: each operator's first call in a new process whose cache is a
/// copy of `bundle` (`tk bundle`): what a deployment pays.
static int runFirstCallFromBundle(const CaseOptions &options, const std::string &bundle) {
  std::printf("First call of each operator in a new process reading a copy of the bundle %s (time inside tk's entry\n"
              "points, less the same call again). Target: <= %.0f ms, every kernel from the index with a bundled "
              "cubin.\n\n",
              bundle.c_str(), kWarmTargetMs);
  std::printf("%-34s %7s %10s %12s %10s  %s\n", "op", "kernels", "indexed", "ptxas cubin", "first ms", "target");
  int missed = 0;
  for (const OperatorTable &t : operatorTables()) {
    if (t.small.empty() || !selected(options.only, t.op))
      continue;
    char tmpl[] = "/tmp/tk_first_call_XXXXXX";
    if (!mkdtemp(tmpl))
      return 1;
    const std::string dir = tmpl;
    const std::string copy = "cp -R '" + bundle + "/.' '" + dir + "/'";
    Child c;
    if (std::system(copy.c_str()) == 0)
      c = runChild(t.op, dir);
    else
      c.error = "could not copy the bundle";
    removeAll(dir);
    if (!c.ok) {
      std::printf("%-34s FAILED: %s\n", t.op.c_str(), c.error.c_str());
      ++missed;
      continue;
    }
    const bool met = c.overheadMs() <= kWarmTargetMs && c.fromIndex == c.kernels && c.fromBundle == c.kernels;
    std::printf("%-34s %7d %10d %12d %10.2f  %s\n", t.op.c_str(), c.kernels, c.fromIndex, c.fromBundle, c.overheadMs(),
                met ? "met" : "MISSED");
    missed += !met;
  }
  return missed ? 1 : 0;
}

int runFirstCall(const CaseOptions &options, const std::string &bundle) {
  if (!bundle.empty()) {
    std::string why;
    if (!runtime::cudaDeviceAvailable(why)) {
      std::printf("tk bench --first-call needs a CUDA device: %s\n", why.c_str());
      return 1;
    }
    return runFirstCallFromBundle(options, bundle);
  }
  if (std::string error = checkOnly(options.only); !error.empty()) {
    std::printf("tk bench --only: %s\n", error.c_str());
    return 2;
  }
  std::string why;
  if (!runtime::cudaDeviceAvailable(why)) {
    std::printf("tk bench --first-call needs a CUDA device: %s\n", why.c_str());
    return 1;
  }
  std::printf("First call of each operator in a new process (its first small case, less the same call again; the\n"
              "time inside tk's entry points, without the check's own work around them):\n"
              "cold = empty caches; warm = tk's index and PTX cached and the driver's JIT cache filled by an\n"
              "earlier process (the defaults); warm PTX = the same without the driver's cache: its JIT at load.\n"
              "The cold call's parts: compile = DSL -> PTX of its kernels, load = the driver's JIT and module load,\n"
              "each summed over the kernels, rest = the remainder (scratch, launches, the first use of the compiler\n"
              "in the process). An operator's kernels compile and load side by side: their sums may then pass the\n"
              "cold time, and rest is negative.\n"
              "Targets: warm <= %.0f ms; cold <= %.0f ms per kernel.\n\n",
              kWarmTargetMs, kColdTargetMsPerKernel);
  std::printf("%-34s %7s %10s %10s %10s %10s %10s %10s %12s  %s\n", "op", "kernels", "cold ms", "compile", "load",
              "rest", "per kernel", "warm ms", "warm PTX ms", "targets");
  int missed = 0;
  for (const OperatorTable &t : operatorTables()) {
    if (t.small.empty() || !selected(options.only, t.op))
      continue;
    char tmpl[] = "/tmp/tk_first_call_XXXXXX";
    if (!mkdtemp(tmpl)) {
      std::printf("%-34s cannot make a cache directory\n", t.op.c_str());
      return 1;
    }
    const std::string dir = tmpl;
    Child cold = runChild(t.op, dir), fill = runChild(t.op, dir, /*driverCache=*/true);
    Child warm = runChild(t.op, dir, /*driverCache=*/true), ptxOnly = runChild(t.op, dir);
    removeAll(dir);
    for (const Child *c : {&cold, &fill, &warm, &ptxOnly})
      if (!c->ok) {
        std::printf("%-34s FAILED: %s\n", t.op.c_str(), c->error.c_str());
        ++missed;
        break;
      }
    if (!cold.ok || !fill.ok || !warm.ok || !ptxOnly.ok)
      continue;
    const double perKernel = cold.overheadMs() / std::max(cold.kernels, 1);
    const bool indexUsed = warm.fromIndex == warm.kernels; // no DSL program ran
    const bool met = warm.overheadMs() <= kWarmTargetMs && perKernel <= kColdTargetMsPerKernel && indexUsed;
    std::printf("%-34s %7d %10.1f %10.1f %10.1f %10.1f %10.1f %10.2f %12.1f  %s\n", t.op.c_str(), cold.kernels,
                cold.overheadMs(), cold.compileMs, cold.loadMs, cold.overheadMs() - cold.compileMs - cold.loadMs,
                perKernel, warm.overheadMs(), ptxOnly.overheadMs(),
                met         ? "met"
                : indexUsed ? "MISSED"
                            : "MISSED (kernels not found through the disk index)");
    missed += !met;
  }
  return missed ? 1 : 0;
}

} // namespace tk::bench
