//===- SharedRowLayout.h - where a transpose buffer's rows go in memory ----===//
//
// Pure arithmetic (no IR) of the shared buffer a tile.transpose goes through
// (SharedTranspose.cpp emits IR that follows it; unit tests check it against
// a bank model of the warp's accesses). The buffer has the result's shape;
// element (row, col) of a row is stored at physicalColumn(row, col).
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/Layout/BlockedLayout.h"

#include <cstdint>

namespace tk::compiler {

struct SharedRowLayout {
  int64_t unit = 0;  ///< elements per 16-byte unit; 0: rows padded by 16 bytes
  int64_t units = 0; ///< units per row (a power of two)
  int64_t shift = 0; ///< log2 of the input layout's vector along its last dimension
  int64_t padElements = 0; ///< elements added to each row (padded rows)

  bool swizzled() const { return unit != 0; }
  /// XOR swizzle: unit k of row R at unit k ^ ((R >> shift) mod units).
  int64_t physicalColumn(int64_t row, int64_t col) const {
    if (!unit)
      return col;
    return ((col / unit) ^ ((row >> shift) & (units - 1))) * unit + col % unit;
  }
};

/// The layout of the buffer transposing `in` (its last two dimensions) into
/// `out`, for elements of `eltBytes` written `rowVec` at a time: swizzled for
/// elements of at least `minSwizzleBytes` (1, 2 or 4) whose rows are a power
/// of two (at least two) of 16-byte units when neither layout has padding and
/// `swizzle` is set, otherwise rows padded by 16 bytes.
SharedRowLayout chooseSharedRowLayout(const BlockedLayout &in, const BlockedLayout &out, int64_t eltBytes,
                                      int64_t rowVec, bool swizzle, int64_t minSwizzleBytes = 1);

} // namespace tk::compiler
