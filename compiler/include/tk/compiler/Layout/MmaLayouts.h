//===- MmaLayouts.h - blocked layouts that are mma.sync fragments ---------===//
//
// tile.dot runs from registers when its lhs and accumulator are laid out as
// mma.sync's fragments, up to a permutation of K (pure arithmetic, no IR):
// lanes [8, 4] (g = lane / 4 along rows, t = lane % 4 along the other
// dimension) and every warp along rows, so that the thread (g, t) of warp w
// holds rows rep * 8 W + w * 8 + g. Its row slots pair up, (2p, 2p + 1), as
// the rows g and g + 8 of the instruction's 16-row tile p.
//  - lhs [M, K], vec [1, V]: column q * 4V + t * V + v. Step s of repetition
//    q gives the instruction's k slots of thread t the columns v = 2s, 2s + 1
//    (TF32: k = t, t + 4) or 4s .. 4s + 3 (bf16: k = 2t, 2t + 1, 2t + 8,
//    2t + 9); the rhs is read with the same permutation, and a step's sum
//    is over the same eight (sixteen) products.
//  - accumulator [M, N], vec [1, 2]: column j * 8 + 2t + e, the c registers
//    of 16 x 8 tile (p, j): c(2h + e) at row slot 2p + h.
//  - a transposed rhs [N, K] of a one-warp kernel, vec [1, V]: the lhs's
//    form, so that thread (g, t) holds the b registers of column 8j + g with
//    the lhs's permutation of K, read straight from its loads (there is no
//    other warp to share a staged copy with).
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/Layout/BlockedLayout.h"

#include <optional>
#include <string>

namespace tk::compiler {

struct MmaRegisterLayouts {
  BlockedLayout lhs, acc;
};

/// K elements of one row a thread feeds one instruction: TF32 2, bf16 4.
inline int64_t mmaStepElements(bool bf16) { return bf16 ? 4 : 2; }

/// The layouts for an [M, K] x [K, N] product over `warps` warps, or none
/// where they do not fit: M a multiple of 16 x warps, N of 8, and a lhs
/// vector V (the widest of at most `vectorBytes`, dividing K / 4, whose rhs
/// run of V elements is at most 32 bytes) a multiple of the step's elements.
std::optional<MmaRegisterLayouts> chooseMmaRegisterLayouts(int64_t m, int64_t k, int64_t n, int64_t warps,
                                                           int64_t lhsBytes, int64_t rhsBytes, bool bf16,
                                                           int64_t vectorBytes);

/// The layout of a transposed rhs [N, K] held in registers as the b operands
/// of a one-warp product whose lhs has `lhs`'s vector (none for more warps, or
/// where N is not a multiple of 8).
std::optional<BlockedLayout> mmaRhsRegisterLayout(const BlockedLayout &lhs, int64_t n, int64_t warps);

/// Why `lhs` and `acc` are not such layouts for `warps` warps (any V that
/// qualifies), or "" where they are and the product can run from registers.
std::string whyNotMmaRegisterLayouts(const BlockedLayout &lhs, const BlockedLayout &acc, int64_t warps,
                                     int64_t rhsBytes, bool bf16);
inline bool areMmaRegisterLayouts(const BlockedLayout &lhs, const BlockedLayout &acc, int64_t warps, int64_t rhsBytes,
                                  bool bf16) {
  return whyNotMmaRegisterLayouts(lhs, acc, warps, rhsBytes, bf16).empty();
}

} // namespace tk::compiler
