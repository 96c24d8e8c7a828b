//===- MmaLayouts.cpp - blocked layouts that are mma.sync fragments -------===//
#include "tk/compiler/Layout/MmaLayouts.h"

#include "llvm/Support/MathExtras.h"

namespace tk::compiler {

namespace {

BlockedLayout fragmentLayout(int64_t rows, int64_t cols, int64_t vec, int64_t warps) {
  return BlockedLayout{{rows, cols}, {1, vec}, {8, 4}, {warps, 1}};
}

/// V fits: a power of two (the rhs runs' shared reads are aligned to their size, up to 16 bytes) of whole steps,
/// whole repetitions of 4 V columns, a rhs run of at most 32 bytes.
bool vectorFits(int64_t v, int64_t k, int64_t rhsBytes, bool bf16) {
  return llvm::isPowerOf2_64(v) && v % mmaStepElements(bf16) == 0 && k % (4 * v) == 0 && v * rhsBytes <= 32;
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

std::optional<BlockedLayout> mmaRhsRegisterLayout(const BlockedLayout &lhs, int64_t n, int64_t warps) {
  if (warps != 1 || n % 8 || lhs.rank() != 2)
    return std::nullopt;
  return fragmentLayout(n, lhs.shape[1], lhs.vec[1], 1);
}

std::string whyNotMmaRegisterLayouts(const BlockedLayout &lhs, const BlockedLayout &acc, int64_t warps,
                                     int64_t rhsBytes, bool bf16) {
  if (lhs.rank() != 2 || acc.rank() != 2)
    return "the operands are not 2-D";
  const int64_t m = lhs.shape[0], k = lhs.shape[1], v = lhs.vec[1];
  if (m % (16 * warps))
    return "M = " + std::to_string(m) + " is not a multiple of 16 rows x " + std::to_string(warps) + " warps";
  if (acc.shape[1] % 8)
    return "N = " + std::to_string(acc.shape[1]) + " is not a multiple of 8";
  if (lhs != fragmentLayout(m, k, v, warps))
    return "the lhs is laid out as " + lhs.str() +
           ", not as mma.sync's fragments (another use, a loop or an "
           "annotation gave it that layout)";
  if (!vectorFits(v, k, rhsBytes, bf16))
    return "the lhs's " + std::to_string(v) + "-element vectors do not fit: a power of two, of whole " +
           std::to_string(mmaStepElements(bf16)) + "-element steps, dividing K / 4, the rhs's run at most 32 bytes";
  if (acc != fragmentLayout(m, acc.shape[1], 2, warps))
    return "the accumulator is laid out as " + acc.str() + ", not as mma.sync's fragments (a later use wants it so)";
  return "";
}

} // namespace tk::compiler
