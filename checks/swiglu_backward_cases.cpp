//===- swiglu_backward_cases.cpp - swiglu_backward_and_per_token_cast ------===//
//
// quant.md 4.18: out, x_grad, x_grad_fp8 and x_grad_sf bit-exact against the
// reference (CUDA's expf on a GPU, the C library's on the CPU path),
// weight_grad within tolerance and zero on unrouted slots.
//===----------------------------------------------------------------------===//
#include "checks/operator_table.h"
#include "checks/swiglu_backward_check.h"
#include "checks/swiglu_check.h"

#include <optional>

namespace tk::checks {
namespace {

/// Chunks of the row per block: H = 256 one, 640 five of 128 columns, 1536
/// three of 512 (the weight gradient sums them per slot).
std::vector<SwigluBackwardCase> cpuGrid() {
  std::vector<SwigluBackwardCase> cases;
  int i = 0;
  for (int64_t h : {256, 640, 1536})
    for (int64_t g : {32, 128})
      for (bool round : {false, true})
        for (std::optional<float> clamp : {std::optional<float>(), std::optional<float>(0.5f)}) {
          if (h % g || (h == 1536 && (g == 32 || round)))
            continue;
          SwigluBackwardCase c{h, g, round, clamp};
          c.tokens = 50, c.topk = 2 + i % 3, c.totalExperts = 8, c.localExperts = 3, c.seed = 10 + i++;
          cases.push_back(c);
        }
  return cases;
}

/// The spec's H list x g in {32, 128} x round_sf x clamp {none, 10, 0.5}; the
/// MoE mappings (4001 tokens, alignment g) cycle through top-k {2, 6, 8, 9}
/// and (experts, ranks) {(72, 8), (256, 8), (256, 64)}.
std::vector<SwigluBackwardCase> gpuGrid() {
  std::vector<SwigluBackwardCase> cases;
  int i = 0;
  for (int64_t h : {2048, 2560, 3072, 4096, 6144, 7168})
    for (int64_t g : {32, 128})
      for (bool round : {false, true})
        for (std::optional<float> clamp :
             {std::optional<float>(), std::optional<float>(10.0f), std::optional<float>(0.5f)}) {
          SwigluBackwardCase c{h, g, round, clamp};
          MoeShape moe = specMoeShape(i);
          c.topk = moe.topk, c.totalExperts = moe.totalExperts, c.localExperts = moe.localExperts;
          c.seed = 2000 + i++;
          cases.push_back(c);
        }
  return cases;
}

} // namespace
} // namespace tk::checks

TK_REGISTER_CASES(swiglu_backward) {
  Table<SwigluBackwardCase> t{"swiglu_backward_and_per_token_cast", checkSwigluBackward};
  t.needsExpfOracle = true;
  t.cpu = cpuGrid();
  t.gpu = gpuGrid();
  // H = 7168, g = 128, round_sf, clamp none and 0.5, a MoE mapping of 4001
  // tokens, top-8 of 72 experts with 9 local (about 4500 rows); bytes = all
  // inputs and outputs.
  t.bench = [](const RowSelection &s) {
    std::vector<SwigluBackwardCase> rows;
    if (!s.headline)
      for (std::optional<float> clamp : {std::optional<float>(), std::optional<float>(0.5f)}) {
        SwigluBackwardCase c{7168, 128, true, clamp};
        c.topk = 8;
        rows.push_back(c);
      }
    return rows;
  };
  for (std::optional<float> clamp : {std::optional<float>{}, std::optional<float>{0.5f}}) {
    SwigluBackwardCase c{2048, clamp ? 32 : 128, true, clamp};
    c.tokens = 100, c.topk = 4;
    t.small.push_back(c);
  }
  registerTable(t);
}
