//===- first_nonzero.h - the first set flag of a read-back ----------------===//
//
// Kernels that report per tile (the lossless re-block's range violations)
// leave one flag per tile; the host looks for the first set one on every
// call, so the scan is part of the call's time.
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>

namespace tk::kernels {

/// Index of the first flag that is not 0.0f, or -1. Each stretch of flags
/// is OR-ed without an early exit (vectorizable) and searched only when one
/// of them is set.
inline int64_t firstNonzero(const float *flags, int64_t n) {
  constexpr int64_t kStretch = 1024;
  for (int64_t begin = 0; begin < n; begin += kStretch) {
    const int64_t end = std::min(n, begin + kStretch);
    unsigned any = 0;
    for (int64_t j = begin; j < end; ++j)
      any |= flags[j] != 0.0f;
    if (any)
      for (int64_t j = begin; j < end; ++j)
        if (flags[j] != 0.0f)
          return j;
  }
  return -1;
}

} // namespace tk::kernels
