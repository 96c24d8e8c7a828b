//===- benchmark.cpp ------------------------------------------------------===//
//
// Timing: CUDA events around each call, 5 warm-ups, median of 50 runs. Inputs
// and outputs rotate over enough copies that one pass over all of them is at
// least 3x the L2 cache, so small shapes are not served from L2. Bytes moved
// are the spec's minimum traffic (quant.md §0): x + out + scale factors.
//===----------------------------------------------------------------------===//
#include "bench/benchmark.h"
#include "bench/bench_row.h"
#include "bench/baselines.h"
#include "bench/cast_back_check.h"
#include "bench/per_block_cast_check.h"
#include "bench/per_channel_cast_check.h"
#include "bench/gpu_session.h"
#include "bench/lossless_check.h"
#include "bench/per_token_cast_check.h"
#include "bench/swiglu_backward_check.h"
#include "bench/swiglu_check.h"
#include "bench/transpose_check.h"
#include "kernels/quant/formats.h"
#include "tk/compiler/Target/Pipeline.h"
#include "tk/compiler/Version.h"
#include "tk/runtime/Context.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace tk::bench {

using kernels::quant::alignUp;
using kernels::quant::ceilDiv;

namespace {

enum class Op { Cast, SfOnly, PrecomputedSf };

/// Times one per-token case with rotated buffers; checks the first set.
Row benchPerTokenCast(GpuSession &gpu, tk_context ctx, const PerTokenCastCase &c, bool check, double ceiling,
                      Op op = Op::Cast) {
  Row row;
  row.op = op == Op::Cast ? "per_token_cast"
                          : op == Op::SfOnly ? "per_token_cast_with_sf_only" : "per_token_cast_with_precomputed_sf";
  row.shape = std::to_string(c.m) + "x" + std::to_string(c.k);
  row.variant = describe(c).substr(row.shape.size() + 1);
  if (check) {
    CheckResult r = op == Op::Cast ? checkPerTokenCast(&gpu, ctx, c, makeInput(c), false)
                                   : checkPerTokenVariants(&gpu, ctx, c, makeInput(c));
    row.check = r.verdict();
  }
  const int64_t elt = c.in == TK_BF16 ? 2 : 4, kb = ceilDiv(c.k, c.group);
  const bool col = c.flags & TK_SF_COL_MAJOR;
  const int64_t sfRows = col ? alignUp(c.m, 4) : c.m, sf0 = col ? 1 : kb, sf1 = col ? sfRows : 1;
  const size_t xBytes = c.m * c.k * elt, outBytes = c.m * c.k, sfBytes = kb * sfRows * 4;
  // quant.md §0: cast s_in + s_out + sf/g; sf only s_in + sf/g; precomputed s_in + 4/g + s_out.
  row.bytes = (double)c.m * c.k * (elt + (op == Op::SfOnly ? 0 : 1)) + (double)c.m * kb * 4;
  size_t perSet = xBytes + outBytes + sfBytes;
  int sets = (int)std::max<size_t>(1, (3ull * gpu.device().l2Bytes + perSet - 1) / perSet);
  std::vector<std::array<tk_tensor, 3>> tensors;
  for (int i = 0; i < sets; ++i) {
    void *x = gpu.alloc(xBytes), *out = gpu.alloc(outBytes), *sf = gpu.alloc(sfBytes);
    gpu.fill(x, 0x3C, xBytes); // 1.17 in bf16, 0.0115 in fp32: a realistic, finite input
    tensors.push_back({deviceTensor(x, c.in, {c.m, c.k}), deviceTensor(out, TK_F8_E4M3, {c.m, c.k}),
                       deviceTensor(sf, TK_F32, {c.m, kb}, {sf0, sf1})});
  }
  int next = 0;
  auto call = [&] {
    auto &t = tensors[next++ % sets];
    if (op == Op::Cast)
      return tk_per_token_cast(ctx, &t[0], nullptr, nullptr, TK_FORMAT_E4M3, (int32_t)c.group, c.flags, &t[1], &t[2],
                               nullptr);
    if (op == Op::SfOnly)
      return tk_per_token_cast_with_sf_only(ctx, &t[0], nullptr, nullptr, TK_FORMAT_E4M3, (int32_t)c.group, c.flags,
                                            &t[2], nullptr);
    return tk_per_token_cast_with_precomputed_sf(ctx, &t[0], TK_FORMAT_E4M3, (int32_t)c.group, &t[2], 0, &t[1],
                                                 nullptr);
  };
  // A call that fails (e.g. a tuning setting the kernel refuses) is not timed.
  if (tk_status st = call(); st != TK_SUCCESS) {
    row.check = std::string("error: ") + tk_last_error();
    return row;
  }
  row.setTime(gpu.medianMs([&] { call(); }, 5, 50), ceiling);
  return row;
}

/// A row printed, and kept for the JSON.
void record(std::vector<Row> &rows, const Row &r) {
  std::printf("%s\n", r.tableLine().c_str());
  rows.push_back(r);
}

/// One checked and timed case as a table row: printed, and kept for the JSON.
/// `described` is "<shape> <variant...>" (the case's describe()).
void addRow(std::vector<Row> &rows, const std::string &op, const std::string &described, const CheckResult &cr,
            double ceiling) {
  Row r;
  r.op = op;
  size_t space = described.find(' ');
  r.shape = described.substr(0, space);
  r.variant = space == std::string::npos ? "" : described.substr(space + 1);
  r.bytes = cr.bytes;
  r.setTime(cr.status == TK_SUCCESS ? cr.ms : 0, ceiling);
  r.check = cr.verdict();
  record(rows, r);
}

std::vector<PerTokenCastCase> perTokenCastCases(bool full) {
  // The spec's benchmark grid (quant.md 4.1) with the (col, round) flags. The
  // spec times (col, round, packed UE8M0); tk has that layout now, but it has
  // not run on a GPU yet, and the peers' comparison rows use these flags.
  std::vector<PerTokenCastCase> cases = {{32768, 7168, 128, TK_BF16, 0},
                                         {32768, 7168, 128, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF}};
  std::vector<int64_t> ms = full ? std::vector<int64_t>{4001, 8001} : std::vector<int64_t>{8001};
  std::vector<int64_t> ks = full ? std::vector<int64_t>{576, 2048, 2560, 3072, 4096, 6144, 7168}
                                 : std::vector<int64_t>{2048, 4096, 7168};
  for (int64_t m : ms)
    for (int64_t k : ks)
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (int64_t g : full ? std::vector<int64_t>{32, 64, 128, k} : std::vector<int64_t>{32, 128, k})
          cases.push_back({m, k, g, in, TK_SF_COL_MAJOR | TK_ROUND_SF});
  return cases;
}

} // namespace

int runBenchmark(const BenchOptions &options) {
  static const char *const kOperators[] = {
      "per_token_cast", "per_token_cast_with_sf_only", "per_token_cast_with_precomputed_sf", "batched_transpose",
      "transpose", "per_block_cast", "per_block_cast_lossless", "per_channel_cast", "per_channel_cast_fused",
      "per_channel_cast_and_transpose", "swiglu_forward_and_per_channel_cast_and_transpose",
      "swiglu_forward_and_per_token_cast", "swiglu_backward_and_per_token_cast", "cast_back"};
  for (size_t begin = 0; !options.only.empty() && begin <= options.only.size();) {
    size_t end = std::min(options.only.find(',', begin), options.only.size());
    std::string name = options.only.substr(begin, end - begin);
    if (std::find(std::begin(kOperators), std::end(kOperators), name) == std::end(kOperators)) {
      std::printf("tk bench --only: unknown operator '%s'\n", name.c_str());
      return 2;
    }
    begin = end + 1;
  }
  GpuSession gpu;
  if (!gpu.ok()) {
    std::printf("tk bench needs a CUDA device: %s\n", gpu.status().message().c_str());
    return 1;
  }
  const auto &dev = gpu.device();
  double ceiling = gpu.copyGBps(size_t(1) << 31);
  std::printf("%s, %d SMs, SM clock %d MHz, memory clock %d MHz, driver %d, tk %s (commit %s)\n", dev.name.c_str(),
              dev.smCount, dev.clockKHz / 1000, dev.memoryClockKHz / 1000, dev.driverVersion,
              tk::compiler::version(), tk::compiler::commit());
  std::printf("copy ceiling (2 GiB device-to-device, read+write): %.0f GB/s\n", ceiling);
  const std::string ablated = compiler::CompileOptions::fromEnvironment().cacheTag();
  std::printf("compile options (TK_ABLATE, TK_MIN_BLOCKS_PER_SM, TK_COPY_ENGINE): %s\n\n",
              ablated.empty() ? "none" : ablated.c_str());

  tk_context ctx;
  tk_context_create(&ctx);
  std::vector<Row> rows;
  std::printf("%s\n", tableHeader().c_str());
  // --only: the sections of the operators named (comma-separated).
  auto want = [&](std::initializer_list<const char *> ops) {
    if (options.only.empty())
      return true;
    for (const char *op : ops)
      if (("," + options.only + ",").find("," + std::string(op) + ",") != std::string::npos)
        return true;
    return false;
  };
  // --match: only the rows whose "shape variant" text contains it.
  auto picked = [&](const std::string &described) {
    return options.match.empty() || described.find(options.match) != std::string::npos;
  };
  bool first = true;
  auto perToken = perTokenCastCases(options.full);
  if (options.headline)
    perToken.resize(1);
  if (!want({"per_token_cast"}))
    perToken.clear();
  for (const auto &c : perToken) {
    if (!picked(describe(c)))
      continue;
    record(rows, benchPerTokenCast(gpu, ctx, c, /*check=*/first, ceiling));
    first = false;
  }

  // The other per-token operators on the headline shape (row-major scale factors).
  for (Op op : {Op::SfOnly, Op::PrecomputedSf}) {
    if (options.headline || !want({"per_token_cast_with_sf_only", "per_token_cast_with_precomputed_sf"}))
      break;
    PerTokenCastCase c{32768, 7168, 128, TK_BF16, TK_ROUND_SF};
    if (!picked(describe(c)))
      continue;
    record(rows, benchPerTokenCast(gpu, ctx, c, /*check=*/true, ceiling, op));
  }

  // per_token_cast's benchmark flags (quant.md 4.1: (T, T, T), packed UE8M0 scale
  // factors) per output format and input, on the headline shape.
  const uint32_t ttt = TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0;
  std::vector<PerTokenCastCase> formats = {{32768, 7168, 128, TK_BF16, ttt},
                                           {32768, 7168, 32, TK_BF16, ttt, 0, 1, TK_FORMAT_E2M1},
                                           {32768, 7168, 7168, TK_BF16, TK_ROUND_SF, 0, 1, TK_FORMAT_E5M6}};
  if (options.headline || !want({"per_token_cast"}))
    formats.clear();
  for (const PerTokenCastCase &c : formats)
    if (picked(describe(c)))
      addRow(rows, "per_token_cast", describe(c), checkPerTokenCast(&gpu, ctx, c, makeInput(c), /*time=*/true),
             ceiling);
  if (!options.headline && want({"per_token_cast"})) { // re-quantization of e4m3 input with (128, 128) packed UE8M0 blocks (quant.md 4.2)
    PerTokenCastCase c{32768, 7168, 128, TK_BF16, ttt};
    std::string d = describe(c);
    d.replace(d.find(" bf16"), 5, " e4m3(128x128)");
    if (picked(d))
      addRow(rows, "per_token_cast", d, checkPerTokenRequant(&gpu, ctx, c, {128, 128, true, true}, /*time=*/true),
             ceiling);
  }

  // Transposes: the spec's benchmark shapes (quant.md 4.19), bytes = x + out.
  std::vector<TransposeCase> transposes = {{8, 4096, 7168, TK_BF16}, {8, 4096, 7168, TK_F8_E4M3},
                                           {8, 4096, 7168, TK_F32}, {1, 8064, 7168, TK_BF16, 2 * 7168, false}};
  if (options.headline)
    transposes.resize(2);
  if (!want({"batched_transpose", "transpose"}))
    transposes.clear();
  for (const auto &c : transposes) {
    if (!picked(describe(c)))
      continue;
    CheckResult cr = checkTranspose(&gpu, ctx, c, /*time=*/true);
    addRow(rows, c.batched ? "batched_transpose" : "transpose", describe(c), cr, ceiling);
  }

  // per_block_cast (quant.md 4.6) on the headline shape, (128, 128) and (32, 32)
  // blocks; bytes = x + out + scale factors.
  std::vector<PerBlockCastCase> perBlock = {{32768, 7168, 128, 128, TK_BF16, TK_ROUND_SF},
                                            {32768, 7168, 32, 32, TK_BF16, TK_ROUND_SF | TK_SF_COL_MAJOR}};
  if (options.headline)
    perBlock.resize(1);
  if (!want({"per_block_cast"}))
    perBlock.clear();
  for (const PerBlockCastCase &c : perBlock) {
    if (!picked(describe(c)))
      continue;
    CheckResult cr = checkPerBlockCast(&gpu, ctx, c, /*time=*/true);
    addRow(rows, "per_block_cast", describe(c), cr, ceiling);
  }

  // per_block_cast_lossless (quant.md 4.9): FP4 (1, 32) to e4m3 (1, 128), with
  // packed UE8M0 and fp32 scales, and to (128, 128) blocks; bytes = xq + xsf +
  // out + out sf. The time
  // includes the wait for the kernel and the read-back of its range flags.
  if (!options.headline && want({"per_block_cast_lossless"}))
    for (const LosslessCase &c : {LosslessCase{32768, 7168, 1, 32, 1, 128, true, true},
                                  LosslessCase{32768, 7168, 1, 32, 1, 128, false, false},
                                  LosslessCase{32768, 7168, 1, 32, 128, 128, true, true}})
      if (picked(describe(c)))
        addRow(rows, "per_block_cast_lossless", describe(c), checkPerBlockLossless(&gpu, ctx, c, /*time=*/true),
               ceiling);

  // per_channel_cast and its transposed form (quant.md 4.13, 4.15); bytes = x + out + sf.
  PerChannelCastCase fused{32768, 7168, 128, TK_BF16, true, false};
  fused.quantized = true;
  // The row gather as the spec benchmarks it (top-k 6): 4001 tokens routed
  // to 9 of 72 experts, about 3000 output rows of 7168.
  PerChannelCastCase gathered{4001, 7168, 128, TK_BF16, true, false};
  gathered.gatherTopk = 6;
  std::vector<PerChannelCastCase> perChannel = {{32768, 7168, 128, TK_BF16, true, false}, fused, gathered,
                                                {32768, 7168, 128, TK_BF16, true, true},
                                                {32768, 7168, 32, TK_BF16, true, true}};
  if (options.headline)
    perChannel.resize(1);
  if (!want({"per_channel_cast", "per_channel_cast_fused", "per_channel_cast_and_transpose"}))
    perChannel.clear();
  for (const PerChannelCastCase &c : perChannel) {
    const char *op = c.quantized || c.gatherTopk ? "per_channel_cast_fused"
                     : c.transposed             ? "per_channel_cast_and_transpose"
                                                : "per_channel_cast";
    if (!want({op}) || !picked(describe(c)))
      continue;
    addRow(rows, op, describe(c), checkPerChannelCast(&gpu, ctx, c, /*time=*/true), ceiling);
  }

  // swiglu_forward_and_per_channel_cast_and_transpose (quant.md 4.17), H = 7168:
  // bytes = x (two bf16 halves) + out + sf; checked against nvcc's expf.
  if (!options.headline && want({"swiglu_forward_and_per_channel_cast_and_transpose",
                                  "swiglu_forward_and_per_token_cast", "swiglu_backward_and_per_token_cast"})) {
    std::optional<ExpTable> deviceExp;
    std::string oracleError;
    try {
      deviceExp.emplace(deviceExpTable(gpu, bf16SwigluExpArguments()));
    } catch (const std::exception &e) {
      oracleError = e.what();
    }
    std::vector<PerChannelCastCase> swiglu(3, PerChannelCastCase{32768, 7168, 128, TK_BF16, true, true});
    swiglu[1].clamp = 0.5f;
    swiglu[2].blockM = 32, swiglu[2].transposed = false;
    if (!want({"swiglu_forward_and_per_channel_cast_and_transpose"}))
      swiglu.clear();
    for (PerChannelCastCase &c : swiglu) {
      c.swiglu = true;
      if (!picked(describe(c)))
        continue;
      CheckResult cr;
      if (deviceExp)
        cr = checkPerChannelCast(&gpu, ctx, c, /*time=*/true, nullptr, &*deviceExp);
      else
        cr.status = TK_ERROR_UNSUPPORTED, cr.error = "no expf oracle: " + oracleError;
      addRow(rows, "swiglu_forward_and_per_channel_cast_and_transpose", describe(c), cr, ceiling);
    }
    // swiglu_forward_and_per_token_cast (quant.md 4.16) on the peers' shape,
    // 65536 x (2 x 2048) bf16 with a routing weight per row, g = 128; and a MoE
    // mapping (4001 tokens, top-8 of 72 experts, 9 local) with clamp 0.5 and
    // counting. Bytes = x + out + SF + 4 B per row and index given.
    std::vector<SwigluCastCase> swigluToken(3, SwigluCastCase{2048, 128});
    swigluToken[0].plainRows = 65536, swigluToken[0].weights = true, swigluToken[0].flags = TK_SF_COL_MAJOR | TK_ROUND_SF;
    swigluToken[1] = swigluToken[0], swigluToken[1].clamp = 0.5f, swigluToken[1].count = true;
    swigluToken[2].weights = swigluToken[2].experts = true, swigluToken[2].clamp = 0.5f, swigluToken[2].count = true;
    swigluToken[2].topk = 8, swigluToken[2].flags = TK_SF_COL_MAJOR | TK_ROUND_SF;
    if (!want({"swiglu_forward_and_per_token_cast"}))
      swigluToken.clear();
    for (const SwigluCastCase &c : swigluToken) {
      if (!picked(describe(c)))
        continue;
      CheckResult cr;
      if (deviceExp)
        cr = checkSwigluPerTokenCast(&gpu, ctx, c, /*time=*/true, &*deviceExp);
      else
        cr.status = TK_ERROR_UNSUPPORTED, cr.error = "no expf oracle: " + oracleError;
      addRow(rows, "swiglu_forward_and_per_token_cast", describe(c), cr, ceiling);
    }
    // swiglu_backward_and_per_token_cast (quant.md 4.18): H = 7168, g = 128,
    // round_sf, clamp none and 0.5, a MoE mapping of 4001 tokens, top-8 of 72
    // experts with 9 local (about 4500 rows); bytes = all inputs and outputs.
    for (std::optional<float> clamp : {std::optional<float>(), std::optional<float>(0.5f)}) {
      if (!want({"swiglu_backward_and_per_token_cast"}))
        break;
      SwigluBackwardCase c{7168, 128, true, clamp};
      c.topk = 8;
      if (!picked(describe(c)))
        continue;
      addRow(rows, "swiglu_backward_and_per_token_cast", describe(c),
             deviceExp ? checkSwigluBackward(&gpu, ctx, c, /*time=*/true) : CheckResult{TK_ERROR_UNSUPPORTED, oracleError},
             ceiling);
    }
  }

  // cast_back (quant.md 4.10) on the headline shape: per-token and blocked
  // scale factors; bytes = xq + scale factors + out.
  std::vector<CastBackCase> castBacks = {{32768, 7168, 1, 128, TK_BF16}, {32768, 7168, 1, 128, TK_F32},
                                         {32768, 7168, 128, 128, TK_BF16}, {32768, 7168, 128, 1, TK_BF16},
                                         {32768, 7168, 1, 32, TK_BF16, true, true, true, TK_FORMAT_E2M1},
                                         {32768, 7168, 1, 7168, TK_BF16, false, true, false, TK_FORMAT_E5M6}};
  if (options.headline)
    castBacks.resize(1);
  if (!want({"cast_back"}))
    castBacks.clear();
  for (const CastBackCase &c : castBacks) {
    if (!picked(describe(c)))
      continue;
    CheckResult cr = checkCastBack(&gpu, ctx, c, /*time=*/true);
    addRow(rows, "cast_back", describe(c), cr, ceiling);
  }

  if (rows.empty() && !options.match.empty()) {
    std::printf("tk bench --match: no row's shape and variant contain '%s'%s\n", options.match.c_str(),
                options.only.empty() ? "" : " among the operators of --only");
    tk_context_destroy(ctx);
    return 2;
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
       << ",\n \"driver\": " << dev.driverVersion << ",\n \"tk_version\": \"" << tk::compiler::version()
       << "\",\n \"commit\": \"" << tk::compiler::commit() << "\",\n \"copy_gbps\": " << jsonNumber(ceiling)
       << ",\n \"warm_call_us\": " << jsonNumber(hostUs) << ",\n \"ablate\": \"" << ablated << "\"" << ",\n \"rows\": [\n";
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
