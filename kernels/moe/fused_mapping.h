//===- fused_mapping.h - the expert-major layout (moe.md 2.9) -------------===//
//
// Every expert e owns a segment [start_e, start_e + align(c_e, A)) of the M
// positions, c_e its slots; its slots take the segment's first c_e positions
// in ascending flat order (t * K + k): the canonical order, independent of
// the number of SMs (the reference's order is not, moe.md Q1).
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <vector>

namespace tk::kernels::moe {

struct FusedMapping {
  int64_t positions = 0; ///< M = sum of the aligned segment lengths
  std::vector<int32_t> posToExpert, posToToken,
      posToTokenTopk;                                         ///< (M), -1 for padding
  std::vector<int32_t> tokenTopkToPos;                        ///< (N, K), -1 for an empty slot
  std::vector<int32_t> expertStart, expertEnd, alignedCounts; ///< (E)
};

/// The mapping of `topkIdx` (tokens x topk; ids outside [0, experts) are
/// empty slots, as -1);
/// `positions` > 0 sizes the position tables (at least the aligned total;
/// the tail is padding), 0 sizes them exactly.
FusedMapping fusedMappingReference(const int64_t *topkIdx, int64_t tokens, int64_t topk, int64_t experts,
                                   int64_t alignment, int64_t positions = 0);

} // namespace tk::kernels::moe
