//===- bench_cases.cpp - the benchmark's cases, operator by operator -----===//
//
// Timing: CUDA events around each call, 5 warm-ups, median of 50 runs. Inputs
// and outputs rotate over enough copies that one pass over all of them is at
// least 3x the L2 cache, so small shapes are not served from L2. Bytes moved
// are the spec's minimum traffic (quant.md §0): x + out + scale factors.
//===----------------------------------------------------------------------===//
#include "bench/bench_cases.h"
#include "bench/cast_back_check.h"
#include "bench/lossless_check.h"
#include "bench/per_block_cast_check.h"
#include "bench/per_channel_cast_check.h"
#include "bench/per_token_cast_check.h"
#include "bench/swiglu_backward_check.h"
#include "bench/swiglu_check.h"
#include "bench/transpose_check.h"
#include "kernels/quant/formats.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>

namespace tk::bench {

using kernels::quant::alignUp;
using kernels::quant::ceilDiv;

namespace {

enum class Op { Cast, SfOnly, PrecomputedSf };

/// Times one per-token case with rotated buffers; checks the first set.
Row benchPerTokenCast(GpuSession &gpu, tk_context ctx, const PerTokenCastCase &c, bool check, double ceiling,
                      Op op = Op::Cast) {
  GpuSession::Scope scope(gpu);
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
  // A call that fails (e.g. a schedule the kernel refuses) is not timed.
  if (tk_status st = call(); st != TK_SUCCESS) {
    row.check = std::string("error: ") + tk_last_error();
    return row;
  }
  row.setTime(gpu.medianMs([&] { call(); }, 5, 50), ceiling);
  return row;
}

/// A checked and timed case's row. `described` is "<shape> <variant...>".
Row rowOf(const std::string &op, const std::string &described, const CheckResult &cr, double ceiling) {
  Row r;
  r.op = op;
  size_t space = described.find(' ');
  r.shape = described.substr(0, space);
  r.variant = space == std::string::npos ? "" : described.substr(space + 1);
  r.bytes = cr.bytes;
  r.setTime(cr.status == TK_SUCCESS ? cr.ms : 0, ceiling);
  r.check = cr.verdict();
  return r;
}

/// A case whose run is `check` (a check...(gpu, ctx, case, time) call) as a row.
template <typename Check>
BenchCase checked(GpuSession &gpu, double ceiling, const std::string &op, const std::string &described, Check check) {
  return {op, described, [&gpu, ceiling, op, described, check](tk_context ctx) {
            GpuSession::Scope scope(gpu);
            return rowOf(op, described, check(ctx), ceiling);
          }};
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

/// The SwiGLU checks' device expf table, made once (nvcc's oracle); its
/// absence is each SwiGLU case's error.
struct ExpOracle {
  std::optional<ExpTable> table;
  std::string error;
};

} // namespace

const std::vector<std::string> &benchOperators() {
  static const std::vector<std::string> ops = {
      "per_token_cast", "per_token_cast_with_sf_only", "per_token_cast_with_precomputed_sf", "batched_transpose",
      "transpose", "per_block_cast", "per_block_cast_lossless", "per_channel_cast", "per_channel_cast_fused",
      "per_channel_cast_and_transpose", "swiglu_forward_and_per_channel_cast_and_transpose",
      "swiglu_forward_and_per_token_cast", "swiglu_backward_and_per_token_cast", "cast_back"};
  return ops;
}

std::string checkOnly(const std::string &only) {
  const auto &ops = benchOperators();
  for (size_t begin = 0; !only.empty() && begin <= only.size();) {
    size_t end = std::min(only.find(',', begin), only.size());
    std::string name = only.substr(begin, end - begin);
    if (std::find(ops.begin(), ops.end(), name) == ops.end())
      return "unknown operator '" + name + "'";
    begin = end + 1;
  }
  return "";
}

std::vector<BenchCase> benchCases(GpuSession &gpu, const CaseOptions &options, double ceiling) {
  std::vector<BenchCase> cases;
  // --only: the sections of the operators named (comma-separated).
  auto want = [&](std::initializer_list<const char *> ops) {
    if (options.only.empty())
      return true;
    for (const char *op : ops)
      if (("," + options.only + ",").find("," + std::string(op) + ",") != std::string::npos)
        return true;
    return false;
  };
  // --match: only the cases whose "shape variant" text contains it.
  auto picked = [&](const std::string &described) {
    return options.match.empty() || described.find(options.match) != std::string::npos;
  };
  auto add = [&](const std::string &op, const std::string &described, auto check) {
    if (picked(described))
      cases.push_back(checked(gpu, ceiling, op, described, check));
  };
  GpuSession *g = &gpu;

  bool first = true;
  auto perToken = perTokenCastCases(options.full);
  if (options.headline)
    perToken.resize(1);
  if (!want({"per_token_cast"}))
    perToken.clear();
  for (const auto &c : perToken) {
    if (!picked(describe(c)))
      continue;
    const bool check = first || options.checkAll;
    cases.push_back({"per_token_cast", describe(c), [&gpu, c, check, ceiling](tk_context ctx) {
                       return benchPerTokenCast(gpu, ctx, c, check, ceiling);
                     }});
    first = false;
  }

  // The other per-token operators on the headline shape (row-major scale factors).
  for (Op op : {Op::SfOnly, Op::PrecomputedSf}) {
    const char *name = op == Op::SfOnly ? "per_token_cast_with_sf_only" : "per_token_cast_with_precomputed_sf";
    if (options.headline || !want({name}))
      continue;
    PerTokenCastCase c{32768, 7168, 128, TK_BF16, TK_ROUND_SF};
    if (!picked(describe(c)))
      continue;
    cases.push_back({name, describe(c), [&gpu, c, op, ceiling](tk_context ctx) {
                       return benchPerTokenCast(gpu, ctx, c, /*check=*/true, ceiling, op);
                     }});
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
    add("per_token_cast", describe(c),
        [g, c](tk_context ctx) { return checkPerTokenCast(g, ctx, c, makeInput(c), /*time=*/true); });
  if (!options.headline && want({"per_token_cast"})) { // re-quantization of e4m3 input with (128, 128) packed UE8M0 blocks (quant.md 4.2)
    PerTokenCastCase c{32768, 7168, 128, TK_BF16, ttt};
    std::string d = describe(c);
    d.replace(d.find(" bf16"), 5, " e4m3(128x128)");
    add("per_token_cast", d,
        [g, c](tk_context ctx) { return checkPerTokenRequant(g, ctx, c, {128, 128, true, true}, /*time=*/true); });
  }

  // Transposes: the spec's benchmark shapes (quant.md 4.19), bytes = x + out.
  std::vector<TransposeCase> transposes = {{8, 4096, 7168, TK_BF16}, {8, 4096, 7168, TK_F8_E4M3},
                                           {8, 4096, 7168, TK_F32}, {1, 8064, 7168, TK_BF16, 2 * 7168, false}};
  if (options.headline)
    transposes.resize(2);
  for (const auto &c : transposes)
    if (want({c.batched ? "batched_transpose" : "transpose"}))
      add(c.batched ? "batched_transpose" : "transpose", describe(c),
          [g, c](tk_context ctx) { return checkTranspose(g, ctx, c, /*time=*/true); });

  // per_block_cast (quant.md 4.6) on the headline shape, (128, 128) and (32, 32)
  // blocks; bytes = x + out + scale factors.
  std::vector<PerBlockCastCase> perBlock = {{32768, 7168, 128, 128, TK_BF16, TK_ROUND_SF},
                                            {32768, 7168, 32, 32, TK_BF16, TK_ROUND_SF | TK_SF_COL_MAJOR}};
  if (options.headline)
    perBlock.resize(1);
  if (!want({"per_block_cast"}))
    perBlock.clear();
  for (const PerBlockCastCase &c : perBlock)
    add("per_block_cast", describe(c), [g, c](tk_context ctx) { return checkPerBlockCast(g, ctx, c, /*time=*/true); });

  // per_block_cast_lossless (quant.md 4.9): FP4 (1, 32) to e4m3 (1, 128), with
  // packed UE8M0 and fp32 scales, and to (128, 128) blocks; bytes = xq + xsf +
  // out + out sf. The time includes the wait for the kernel and the read-back
  // of its range flags.
  if (!options.headline && want({"per_block_cast_lossless"}))
    for (const LosslessCase &c : {LosslessCase{32768, 7168, 1, 32, 1, 128, true, true},
                                  LosslessCase{32768, 7168, 1, 32, 1, 128, false, false},
                                  LosslessCase{32768, 7168, 1, 32, 128, 128, true, true}})
      add("per_block_cast_lossless", describe(c),
          [g, c](tk_context ctx) { return checkPerBlockLossless(g, ctx, c, /*time=*/true); });

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
  for (const PerChannelCastCase &c : perChannel) {
    const char *op = c.quantized || c.gatherTopk ? "per_channel_cast_fused"
                     : c.transposed             ? "per_channel_cast_and_transpose"
                                                : "per_channel_cast";
    if (want({op}))
      add(op, describe(c), [g, c](tk_context ctx) { return checkPerChannelCast(g, ctx, c, /*time=*/true); });
  }

  // The SwiGLU operators, checked against nvcc's expf.
  if (!options.headline && want({"swiglu_forward_and_per_channel_cast_and_transpose",
                                  "swiglu_forward_and_per_token_cast", "swiglu_backward_and_per_token_cast"})) {
    auto oracle = std::make_shared<ExpOracle>();
    try {
      oracle->table.emplace(deviceExpTable(gpu, bf16SwigluExpArguments()));
    } catch (const std::exception &e) {
      oracle->error = e.what();
    }
    auto noOracle = [oracle] {
      CheckResult cr;
      cr.status = TK_ERROR_UNSUPPORTED, cr.error = "no expf oracle: " + oracle->error;
      return cr;
    };
    // swiglu_forward_and_per_channel_cast_and_transpose (quant.md 4.17), H =
    // 7168: bytes = x (two bf16 halves) + out + sf.
    std::vector<PerChannelCastCase> swiglu(3, PerChannelCastCase{32768, 7168, 128, TK_BF16, true, true});
    swiglu[1].clamp = 0.5f;
    swiglu[2].blockM = 32, swiglu[2].transposed = false;
    if (!want({"swiglu_forward_and_per_channel_cast_and_transpose"}))
      swiglu.clear();
    for (PerChannelCastCase &c : swiglu) {
      c.swiglu = true;
      add("swiglu_forward_and_per_channel_cast_and_transpose", describe(c), [g, c, oracle, noOracle](tk_context ctx) {
        return oracle->table ? checkPerChannelCast(g, ctx, c, /*time=*/true, nullptr, &*oracle->table) : noOracle();
      });
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
    for (const SwigluCastCase &c : swigluToken)
      add("swiglu_forward_and_per_token_cast", describe(c), [g, c, oracle, noOracle](tk_context ctx) {
        return oracle->table ? checkSwigluPerTokenCast(g, ctx, c, /*time=*/true, &*oracle->table) : noOracle();
      });
    // swiglu_backward_and_per_token_cast (quant.md 4.18): H = 7168, g = 128,
    // round_sf, clamp none and 0.5, a MoE mapping of 4001 tokens, top-8 of 72
    // experts with 9 local (about 4500 rows); bytes = all inputs and outputs.
    for (std::optional<float> clamp : {std::optional<float>(), std::optional<float>(0.5f)}) {
      if (!want({"swiglu_backward_and_per_token_cast"}))
        break;
      SwigluBackwardCase c{7168, 128, true, clamp};
      c.topk = 8;
      add("swiglu_backward_and_per_token_cast", describe(c), [g, c, oracle, noOracle](tk_context ctx) {
        return oracle->table ? checkSwigluBackward(g, ctx, c, /*time=*/true) : noOracle();
      });
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
  for (const CastBackCase &c : castBacks)
    add("cast_back", describe(c), [g, c](tk_context ctx) { return checkCastBack(g, ctx, c, /*time=*/true); });
  return cases;
}

} // namespace tk::bench
