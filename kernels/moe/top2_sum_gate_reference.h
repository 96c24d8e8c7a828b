//===- top2_sum_gate_reference.h - the routing gate's math in C++ (moe.md 2.3) ===//
//
// What tk_top2_sum_gate's kernel will be checked against: steps 1-12 of
// moe.md 2.3 per row, in the kernel formulation the spec asks for (softmax
// sums in expert order, D = 1e-20f + s_0 + ... + s_{K-1} left to right, the
// replica hash in 64 bits). Selection: greater selection score first, ties to
// the lower expert id (a stable descending sort), groups the same by their
// top-2 sums.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tk::kernels::moe {

enum class Scoring { Sigmoid = 0, SqrtSoftplus = 1, Softmax = 2 };

struct Top2SumGateParams {
  int64_t tokens = 0, experts = 0;    ///< N (padded rows included), E
  int64_t topk = 0;                   ///< K routed slots
  int64_t topkGroups = 0, groups = 0; ///< Kg, G: both 0, or 0 < Kg <= G with E % G == 0
  int64_t sharedSlots = 0;            ///< S (num_shared_experts when shared-as-routed, else 0)
  float routedScalingFactor = 1.0f;
  int64_t epRank = 0, epRanks = 1, tpRank = 0, tpRanks = 1;
  Scoring scoring = Scoring::Sigmoid;
  /// Optional inputs (null: absent). mask / fixRouting: one byte per row
  /// (non-zero = true); physicalMap: (E + S, replicas) row-major with
  /// logicalCount (E + S) valid replicas per logical expert.
  const uint8_t *mask = nullptr, *fixRouting = nullptr;
  const int32_t *physicalMap = nullptr, *logicalCount = nullptr;
  int64_t replicas = 0;                                ///< X + 1: the map's columns
  int64_t slots() const { return topk + sharedSlots; } ///< P
};

/// Outputs per row: ids (N, P), weights (N, P); `unmapped` (N, K) when not
/// null: in (the fixed rows' ids) and out (every routed row's logical ids).
void top2SumGateReference(const Top2SumGateParams &p, const float *logits, const float *bias, int64_t *ids,
                          float *weights, int64_t *unmapped);

/// "" when `p` satisfies moe.md 2.3's preconditions (those a caller can get
/// wrong: the Validation list), else the first that fails.
std::string top2SumGateProblem(const Top2SumGateParams &p);

} // namespace tk::kernels::moe
