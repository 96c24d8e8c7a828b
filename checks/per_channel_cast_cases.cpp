//===- per_channel_cast_cases.cpp - the per-channel casts' tests and rows --===//
//
// per_channel_cast (quant.md 4.13), per_channel_cast_fused (4.14),
// per_channel_cast_and_transpose (4.15) and
// swiglu_forward_and_per_channel_cast_and_transpose (4.17): one kernel family,
// one check routine.
//===----------------------------------------------------------------------===//
#include "checks/operator_table.h"
#include "checks/per_channel_cast_check.h"
#include "checks/swiglu_check.h"

#include <optional>

namespace tk::checks {
namespace {

// Functions, not globals: tables are built during static initialization
// (the test binaries register a test per table before main).
std::vector<int64_t> specKs() { return {576, 2048, 2560, 3072, 4096, 6144, 7168}; }

/// The SwiGLU cases of one shape share one random x (made once while
/// consecutive cases ask for it) and, on a GPU, CUDA's expf as the reference's.
CheckResult check(GpuSession *gpu, tk_context ctx, const PerChannelCastCase &c, bool time) {
  if (!c.swiglu)
    return checkPerChannelCast(gpu, ctx, c, time);
  auto x = sharedInput(PerTokenCastCase{c.m, 2 * c.k, 128, TK_BF16, 0, 0, c.seed});
  return checkPerChannelCast(gpu, ctx, c, time, x.get(), swigluExpOracle(gpu));
}

std::vector<PerChannelCastCase> plainCpu() {
  std::vector<PerChannelCastCase> cases;
  for (int64_t m : {128, 384})
    for (int64_t k : {576, 2048})
      for (tk_dtype in : {TK_BF16, TK_F32})
        for (bool round : {false, true})
          cases.push_back({m, k, 128, in, round, false, (uint64_t)(m + k)});
  cases.push_back({256, 64, 128, TK_BF16, true, false, 64}); // narrower than the bf16 cast's 128-channel tile
  return cases;
}

std::vector<PerChannelCastCase> transposedCpu() {
  std::vector<PerChannelCastCase> cases;
  for (int64_t m : {128, 384})
    for (int64_t k : {576, 2048})
      for (int64_t b : {32, 128})
        for (bool round : {false, true})
          cases.push_back({m, k, b, TK_BF16, round, true, (uint64_t)(m * 3 + k)});
  return cases;
}

/// A per-token quantized x (multipliers that are not powers of two, so the
/// order fl(fl(dec * xs) * INV) matters); the row gather from a MoE routing
/// (alignment 128; padding rows -1 read as zeros), plain and quantized x.
std::vector<PerChannelCastCase> fusedCpu() {
  std::vector<PerChannelCastCase> cases;
  for (int64_t m : {128, 384})
    for (int64_t k : {640, 2048})
      for (bool round : {false, true}) {
        PerChannelCastCase c{m, k, 128, TK_BF16, round, false, (uint64_t)(m + k + round)};
        c.quantized = true;
        cases.push_back(c);
      }
  int i = 0;
  for (int64_t k : {640, 1024})
    for (bool quantized : {false, true})
      for (bool round : {false, true}) {
        if (quantized && k % 128)
          continue;
        PerChannelCastCase c{97, k, 128, i % 2 ? TK_F32 : TK_BF16, round, false, (uint64_t)(50 + i)};
        c.quantized = quantized;
        c.gatherTopk = 2 + i % 3, c.totalExperts = 8, c.localExperts = 3;
        ++i;
        cases.push_back(c);
      }
  return cases;
}

/// M is a multiple of 128 (quant.md 4.17): at b = 32 a CTA walks 8 tiles of
/// 32 rows, so both M leave one CTA's walk short; 576 channels leave a
/// partial 128-channel tile.
std::vector<PerChannelCastCase> swigluCpu() {
  std::vector<PerChannelCastCase> cases;
  for (int64_t m : {128, 256})
    for (int64_t h : {576, 1024})
      for (int64_t b : {32, 128})
        for (bool transposed : {true, false})
          for (std::optional<float> clamp : {std::optional<float>(), std::optional<float>(0.5f)}) {
            PerChannelCastCase c{m, h, b, TK_BF16, b == 32, transposed, (uint64_t)(m + h + b)};
            c.swiglu = true;
            c.clamp = clamp;
            cases.push_back(c);
          }
  return cases;
}

/// M in {4096, 8064} x the seven K x round_sf: b = 128 on bf16, and the
/// transposed form with b in {32, 128}.
std::vector<PerChannelCastCase> plainGpu(bool transposed) {
  std::vector<PerChannelCastCase> cases;
  for (int64_t m : {4096, 8064})
    for (int64_t k : specKs())
      for (bool round : {false, true}) {
        if (!transposed)
          cases.push_back({m, k, 128, TK_BF16, round, false, (uint64_t)(m + k)});
        else
          for (int64_t b : {32, 128})
            cases.push_back({m, k, b, TK_BF16, round, true, (uint64_t)(m + k + b)});
      }
  return cases;
}

/// A quantized x (the non-MoE case without an index): N in {4096, 8064} x K
/// in {2048, ..., 7168} x round_sf; the row gather (the MoE grid): 4001
/// tokens x K x quantized in {F, T} x round_sf, the mappings cycling through
/// top-k {2, 6, 8, 9} and (experts, ranks) {(72, 8), (256, 8), (256, 64)}.
std::vector<PerChannelCastCase> fusedGpu() {
  std::vector<PerChannelCastCase> cases;
  for (int64_t m : {4096, 8064})
    for (int64_t k : {2048, 2560, 3072, 4096, 6144, 7168})
      for (bool round : {false, true}) {
        PerChannelCastCase c{m, k, 128, TK_BF16, round, false, (uint64_t)(m + k + 7)};
        c.quantized = true;
        cases.push_back(c);
      }
  int i = 0;
  for (int64_t k : {2048, 2560, 3072, 4096, 6144, 7168})
    for (bool quantized : {false, true})
      for (bool round : {false, true}) {
        PerChannelCastCase c{4001, k, 128, TK_BF16, round, false, (uint64_t)(300 + i)};
        c.quantized = quantized;
        MoeShape moe = specMoeShape(i++);
        c.gatherTopk = moe.topk, c.totalExperts = moe.totalExperts, c.localExperts = moe.localExperts;
        cases.push_back(c);
      }
  return cases;
}

/// M in {4096, 8064} x H x b in {32, 128} x without_transpose x round_sf x
/// clamp in {none, 10, 0.5}, one random x per shape.
std::vector<PerChannelCastCase> swigluGpu() {
  std::vector<PerChannelCastCase> cases;
  for (int64_t m : {4096, 8064})
    for (int64_t h : specKs())
      for (int64_t b : {32, 128})
        for (bool transposed : {true, false})
          for (bool round : {false, true})
            for (std::optional<float> clamp :
                 {std::optional<float>(), std::optional<float>(10.0f), std::optional<float>(0.5f)}) {
              PerChannelCastCase c{m, h, b, TK_BF16, round, transposed, (uint64_t)(m + h)};
              c.swiglu = true;
              c.clamp = clamp;
              cases.push_back(c);
            }
  return cases;
}

Table<PerChannelCastCase> table(const std::string &op, std::vector<PerChannelCastCase> cpu,
                                std::vector<PerChannelCastCase> gpu) {
  Table<PerChannelCastCase> t{op, check};
  t.cpu = std::move(cpu);
  t.gpu = std::move(gpu);
  return t;
}

} // namespace
} // namespace tk::checks

// Rows: the headline shape; bytes = x + out + sf (the gather: the rows read
// and written, with the index).
TK_REGISTER_CASES(per_channel_cast) {
  using Rows = std::vector<PerChannelCastCase>;
  auto plain = table("per_channel_cast", plainCpu(), plainGpu(false));
  plain.bench = [](const RowSelection &) { return Rows{{32768, 7168, 128, TK_BF16, true, false}}; };
  plain.small = {{256, 7168, 128, TK_BF16, true, false}, {256, 2048, 128, TK_F32, false, false}};
  registerTable(plain);

  auto fused = table("per_channel_cast_fused", fusedCpu(), fusedGpu());
  fused.bench = [](const RowSelection &s) {
    if (s.headline)
      return Rows{};
    PerChannelCastCase quantized{32768, 7168, 128, TK_BF16, true, false};
    quantized.quantized = true;
    // The row gather as the spec benchmarks it (top-k 6): 4001 tokens routed
    // to 9 of 72 experts, about 3000 output rows of 7168.
    PerChannelCastCase gathered{4001, 7168, 128, TK_BF16, true, false};
    gathered.gatherTopk = 6;
    return Rows{quantized, gathered};
  };
  {
    PerChannelCastCase q{256, 7168, 128, TK_BF16, false, false};
    q.quantized = true;
    PerChannelCastCase gathered{200, 7168, 128, TK_BF16, true, false};
    gathered.gatherTopk = 6;
    fused.small = {q, gathered};
  }
  registerTable(fused);

  auto transposed = table("per_channel_cast_and_transpose", transposedCpu(), plainGpu(true));
  transposed.bench = [](const RowSelection &s) {
    return s.headline ? Rows{}
                      : Rows{{32768, 7168, 128, TK_BF16, true, true}, {32768, 7168, 32, TK_BF16, true, true}};
  };
  transposed.small = {{256, 7168, 128, TK_BF16, false, true}, {256, 7168, 32, TK_BF16, true, true}};
  registerTable(transposed);

  // H = 7168: bytes = x (two bf16 halves) + out + sf.
  auto swiglu = table("swiglu_forward_and_per_channel_cast_and_transpose", swigluCpu(), swigluGpu());
  swiglu.needsExpfOracle = true;
  swiglu.bench = [](const RowSelection &s) {
    if (s.headline)
      return Rows{};
    Rows rows(3, PerChannelCastCase{32768, 7168, 128, TK_BF16, true, true});
    rows[1].clamp = 0.5f;
    rows[2].blockM = 32, rows[2].transposed = false;
    for (PerChannelCastCase &c : rows)
      c.swiglu = true;
    return rows;
  };
  for (bool transposed : {true, false}) {
    PerChannelCastCase s{256, 2048, transposed ? 128 : 32, TK_BF16, true, transposed, 5};
    s.swiglu = true;
    if (!transposed)
      s.clamp = 0.5f;
    swiglu.small.push_back(s);
  }
  registerTable(swiglu);
}
