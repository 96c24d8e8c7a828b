//===- MmaLayouts.cpp - blocked layouts that are mma.sync fragments -------===//
#include "tk/compiler/Layout/MmaLayouts.h"

namespace tk::compiler {

namespace {

BlockedLayout fragmentLayout(int64_t rows, int64_t cols, int64_t vec, int64_t warps) {
  return BlockedLayout{{rows, cols}, {1, vec}, {8, 4}, {warps, 1}};
}

bool sameLayout(const BlockedLayout &a, const BlockedLayout &b) {
  return a.shape == b.shape && a.vec == b.vec && a.lanes == b.lanes && a.warps == b.warps;
}

/// V fits: whole steps, whole repetitions of 4 V columns, a rhs run of at most 32 bytes (its shared reads).
bool vectorFits(int64_t v, int64_t k, int64_t rhsBytes, bool bf16) {
  return v % mmaStepElements(bf16) == 0 && k % (4 * v) == 0 && v * rhsBytes <= 32;
}

} // namespace

std::optional<MmaRegisterLayouts> chooseMmaRegisterLayouts(int64_t m, int64_t k, int64_t n, int64_t warps,
                                                           int64_t lhsBytes, int64_t rhsBytes, bool bf16,
                                                           int64_t vectorBytes) {
  if (warps < 1 || m % (16 * warps) || n % 8)
    return std::nullopt;
  for (int64_t v = std::max<int64_t>(1, vectorBytes / lhsBytes); v >= mmaStepElements(bf16); v /= 2)
    if (vectorFits(v, k, rhsBytes, bf16))
      return MmaRegisterLayouts{fragmentLayout(m, k, v, warps), fragmentLayout(m, n, 2, warps)};
  return std::nullopt;
}

bool areMmaRegisterLayouts(const BlockedLayout &lhs, const BlockedLayout &acc, int64_t warps, int64_t rhsBytes,
                           bool bf16) {
  if (lhs.rank() != 2 || acc.rank() != 2 || lhs.shape[0] % (16 * warps) || acc.shape[1] % 8)
    return false;
  const int64_t m = lhs.shape[0], k = lhs.shape[1], v = lhs.vec[1];
  return vectorFits(v, k, rhsBytes, bf16) && sameLayout(lhs, fragmentLayout(m, k, v, warps)) &&
         sameLayout(acc, fragmentLayout(m, acc.shape[1], 2, warps));
}

} // namespace tk::compiler
