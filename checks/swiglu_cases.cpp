//===- swiglu_cases.cpp - swiglu_forward_and_per_token_cast: tests and rows ===//
//
// quant.md 4.16; on a GPU the reference's exponential is CUDA's expf (the
// nvcc-compiled oracle), on the CPU path the C library's, as the kernel's there.
//===----------------------------------------------------------------------===//
#include "checks/operator_table.h"
#include "checks/swiglu_check.h"

namespace tk::checks {
namespace {

CheckResult check(GpuSession *gpu, tk_context ctx, const SwigluCastCase &c, bool time) {
  return checkSwigluPerTokenCast(gpu, ctx, c, time, swigluExpOracle(gpu));
}

/// The spec's grid on small routings, and the variants the grid lacks:
/// weights without an expert mask, fp32 input, a custom scale clamp (most
/// groups' absmax is below it), plain rows (no mapping at all).
std::vector<SwigluCastCase> cpuGrid() {
  std::vector<SwigluCastCase> cases;
  int i = 0;
  for (SwigluCastCase c : swigluCastGrid({256, 1280}, {std::nullopt, 0.5f}, /*packedWithWeights=*/true)) {
    c.tokens = 97, c.topk = 2 + i % 3, c.totalExperts = 8, c.localExperts = 3, c.alignment = 16;
    c.seed = 100 + i++;
    cases.push_back(c);
  }
  SwigluCastCase weightsOnly{512, 128};
  weightsOnly.weights = true, weightsOnly.tokens = 60, weightsOnly.totalExperts = 4, weightsOnly.localExperts = 2;
  cases.push_back(weightsOnly);
  SwigluCastCase f32{384, 384, TK_F32};
  f32.plainRows = 33, f32.clamp = 10.0f, f32.count = true;
  cases.push_back(f32);
  SwigluCastCase sfClamp{256, 128};
  sfClamp.plainRows = 16, sfClamp.sfClampMin = 0.25f;
  cases.push_back(sfClamp);
  sfClamp.flags = TK_ROUND_SF;
  cases.push_back(sfClamp);
  return cases;
}

} // namespace

/// The spec's H list x g in {128, H} x flags {(F,T,F), (T,T,T)} (without
/// (col, g = H) and (packed, weights)) x routing {none, weights and experts} x
/// clamp {none, 10 (counted), 0.5 (counted)}; the MoE mappings cycle through
/// top-k {2, 6, 8, 9} and (experts, ranks) {(72, 8), (256, 8), (256, 64)} with
/// 4001 tokens and alignment 16. (Its persistent-schedule sweep is a GPU test.)
std::vector<SwigluCastCase> swigluCastGpuGrid() {
  std::vector<SwigluCastCase> cases;
  int i = 0;
  for (SwigluCastCase c : swigluCastGrid({1024, 1280, 1536, 2048, 3072, 3584}, {std::nullopt, 10.0f, 0.5f},
                                         /*packedWithWeights=*/false)) {
    MoeShape moe = specMoeShape(i);
    c.topk = moe.topk, c.totalExperts = moe.totalExperts, c.localExperts = moe.localExperts;
    c.seed = 1000 + i++;
    cases.push_back(c);
  }
  return cases;
}

} // namespace tk::checks

TK_REGISTER_CASES(swiglu) {
  Table<SwigluCastCase> t{"swiglu_forward_and_per_token_cast", check};
  t.needsExpfOracle = true;
  t.cpu = cpuGrid();
  t.gpu = swigluCastGpuGrid();
  SwigluCastCase f32{2048, 128, TK_F32}; // fp32 input (its own expf table) and a custom scale clamp
  f32.weights = f32.experts = true, f32.clamp = 0.5f, f32.count = true;
  SwigluCastCase sfClamp{2048, 128};
  sfClamp.flags = TK_ROUND_SF, sfClamp.sfClampMin = 0.25f, sfClamp.plainRows = 4096;
  t.gpu.push_back(f32);
  t.gpu.push_back(sfClamp);
  // The peers' shape, 65536 x (2 x 2048) bf16 with a routing weight per row,
  // g = 128, with and without clamp 0.5 (counted); and a MoE mapping (4001
  // tokens, top-8 of 72 experts, 9 local) with clamp 0.5 and counting.
  // Bytes = x + out + SF + 4 B per row and index given.
  t.bench = [](const RowSelection &s) {
    if (s.headline)
      return std::vector<SwigluCastCase>{};
    std::vector<SwigluCastCase> rows(3, SwigluCastCase{2048, 128});
    rows[0].plainRows = 65536, rows[0].weights = true, rows[0].flags = TK_SF_COL_MAJOR | TK_ROUND_SF;
    rows[1] = rows[0], rows[1].clamp = 0.5f, rows[1].count = true;
    rows[2].weights = rows[2].experts = true, rows[2].clamp = 0.5f, rows[2].count = true;
    rows[2].topk = 8, rows[2].flags = TK_SF_COL_MAJOR | TK_ROUND_SF;
    return rows;
  };
  {
    SwigluCastCase plain{2048, 128};
    plain.plainRows = 256, plain.weights = true, plain.clamp = 0.5f, plain.count = true;
    plain.flags = TK_SF_COL_MAJOR | TK_ROUND_SF;
    SwigluCastCase routed{1024, 128};
    routed.tokens = 200, routed.topk = 4, routed.weights = routed.experts = true;
    SwigluCastCase packed{1024, 128};
    packed.plainRows = 256, packed.flags = TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0;
    SwigluCastCase whole{1024, 1024, TK_F32};
    whole.plainRows = 100, whole.clamp = 10.0f, whole.count = true;
    t.small = {plain, routed, packed, whole};
  }
  registerTable(t);
}
