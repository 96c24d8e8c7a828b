//===- benchmark.cpp - `tk bench`: the cases' table, JIT costs, JSON ------===//
#include "bench/benchmark.h"
#include "bench/baselines.h"
#include "bench/driver_version.h"
#include "bench/launch_floor.h"
#include "tk/compiler/Target/Pipeline.h"
#include "tk/compiler/Version.h"
#include "tk/runtime/Context.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace tk::bench {

using namespace tk::checks;

std::string schedulesRun(tk_context ctx) {
  std::string out;
  for (const auto &[op, choice] : ctx->scheduleLog.all())
    out += (out.empty() ? "" : "; ") + (choice.source == "heuristic" ? std::string("heuristic") : choice.source) +
           (choice.schedule.empty() ? "" : " " + choice.schedule) +
           (choice.fitted.empty() ? "" : ", fitted to the call: " + choice.fitted);
  return out;
}

int runBenchmark(const BenchOptions &options) {
  if (std::string problem = selectionProblem(options); !problem.empty()) {
    std::printf("tk bench %s\n", problem.c_str());
    return 2;
  }
  GpuSession gpu;
  if (!gpu.ok()) {
    std::printf("tk bench needs a CUDA device: %s\n", gpu.status().message().c_str());
    return 1;
  }
  const auto &dev = gpu.device();
  double ceiling = gpu.copyGBps(size_t(1) << 31);
  const std::string driverBuild = kernelDriverVersion(), driver = describeDriver(driverBuild, dev.driverVersion);
  std::printf("%s, %d SMs, SM clock %d MHz, memory clock %d MHz, driver %s, tk %s (commit %s)\n", dev.name.c_str(),
              dev.smCount, dev.clockKHz / 1000, dev.memoryClockKHz / 1000, driver.c_str(), tk::compiler::version(),
              tk::compiler::commit());
  std::printf("copy ceiling (2 GiB device-to-device, read+write): %.0f GB/s\n", ceiling);
  tk_context ctx;
  if (tk_context_create(&ctx) != TK_SUCCESS) {
    std::printf("tk bench: %s\n", tk_last_error());
    return 2;
  }
  const std::string ablated = ctx->cache.options().cacheTag();
  std::printf("compile options (TK_ABLATE, TK_MIN_BLOCKS_PER_SM, TK_COPY_ENGINE, ...): %s\n",
              ablated.empty() ? "none" : ablated.c_str());
  const double emptyUs = emptyKernelUs(gpu, ctx);
  std::printf("empty-kernel launch (timed as the rows): %.2f us\n", emptyUs);
  ctx->schedules.useTable = options.useTable;
  std::printf("schedules: %s\n\n", options.useTable ? "TK_SCHEDULE, else the tuning table, else the heuristic"
                                                     : "TK_SCHEDULE, else the heuristic (--no-table)");
  std::vector<Row> rows;
  std::printf("%s\n", tableHeader().c_str());
  for (const BenchCase &c : benchCases(gpu, options, ceiling)) {
    ctx->scheduleLog.clear();
    Row r = c.run(ctx);
    r.schedule = schedulesRun(ctx);
    std::printf("%s\n", r.tableLine().c_str());
    rows.push_back(r);
  }

  // JIT cost: every kernel compiled above, cold (DSL -> PTX, then PTX -> loaded module).
  // Kernels found in the disk cache (TK_CACHE_DIR) were not compiled: left out.
  auto compiled = ctx->cache.snapshot();
  compiled.erase(std::remove_if(compiled.begin(), compiled.end(), [](auto &k) { return k->fromDisk; }),
                 compiled.end());
  double compileSum = 0, loadSum = 0;
  for (auto &k : compiled) {
    compileSum += k->compileMs;
    loadSum += k->loadMs;
  }
  // Warm cache-hit call overhead: host time of one call (validate, cache hit, launch), no sync.
  void *x = gpu.alloc(4 * 7168 * 2), *out = gpu.alloc(4 * 7168), *sf = gpu.alloc(4 * 56 * 4);
  tk_tensor tx = deviceTensor(x, TK_BF16, {4, 7168}), tout = deviceTensor(out, TK_F8_E4M3, {4, 7168}),
            tsf = deviceTensor(sf, TK_F32, {4, 56});
  auto call = [&] {
    tk_per_token_cast(ctx, &tx, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, &tout, &tsf, nullptr);
  };
  call();
  gpu.synchronize();
  const int calls = 2000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    call();
  double hostUs = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / calls;
  gpu.synchronize();
  std::printf("\nJIT: %zu kernels, cold compile (DSL -> PTX) %.1f ms mean, module load %.1f ms mean; "
              "warm call (cache hit, host side) %.2f us\n",
              compiled.size(), compileSum / std::max<size_t>(1, compiled.size()),
              loadSum / std::max<size_t>(1, compiled.size()), hostUs);

  std::vector<MeasuredRow> measured;
  for (const Row &r : rows)
    if (r.timed())
      measured.push_back({r.op, r.shape, r.variant, r.us});
  std::printf("%s", formatBaselines(loadBaselines(options.baselinesPath), measured, ceiling).c_str());

  if (!options.jsonPath.empty()) {
    std::ofstream js(options.jsonPath);
    js << "{\n \"device\": \"" << jsonEscape(dev.name) << "\",\n \"sm_count\": " << dev.smCount
       << ",\n \"sm_clock_mhz\": " << dev.clockKHz / 1000 << ",\n \"memory_clock_mhz\": " << dev.memoryClockKHz / 1000
       << ",\n \"driver\": " << dev.driverVersion << ",\n \"driver_version\": \"" << jsonEscape(driverBuild)
       << "\",\n \"tk_version\": \"" << tk::compiler::version() << "\",\n \"commit\": \"" << tk::compiler::commit()
       << "\",\n \"copy_gbps\": " << jsonNumber(ceiling) << ",\n \"warm_call_us\": " << jsonNumber(hostUs)
       << ",\n \"empty_kernel_us\": " << jsonNumber(emptyUs) << ",\n \"ablate\": \"" << ablated << "\""
       << ",\n \"rows\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row &r = rows[i];
      js << "  " << r.json() << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    js << " ],\n \"jit\": [\n";
    for (size_t i = 0; i < compiled.size(); ++i)
      js << "  {\"kernel\": \"" << jsonEscape(compiled[i]->signature.name) << "\", \"config\": \""
         << jsonEscape(compiled[i]->config) << "\", \"content_key\": \"" << compiled[i]->contentKey
         << "\", \"compile_ms\": "
         << jsonNumber(compiled[i]->compileMs) << ", \"load_ms\": " << jsonNumber(compiled[i]->loadMs) << "}"
         << (i + 1 < compiled.size() ? "," : "") << "\n";
    js << " ]\n}\n";
    std::printf("wrote %s\n", options.jsonPath.c_str());
  }
  tk_context_destroy(ctx);
  // A row that failed its check or its call makes the run fail (after the
  // table and the JSON, which say which). Rows timed without a check have
  // an empty check.
  size_t failed = std::count_if(rows.begin(), rows.end(), [](const Row &r) { return r.failed(); });
  if (failed)
    std::fprintf(stderr, "tk bench: %zu of %zu rows failed their check or call (the check column says why)\n",
                 failed, rows.size());
  return failed ? 1 : 0;
}

} // namespace tk::bench
