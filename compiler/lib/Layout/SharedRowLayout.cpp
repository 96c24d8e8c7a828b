//===- SharedRowLayout.cpp ------------------------------------------------===//
#include "tk/compiler/Layout/SharedRowLayout.h"

namespace tk::compiler {

static bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

static int64_t log2Of(int64_t v) {
  int64_t l = 0;
  while ((int64_t(1) << (l + 1)) <= v)
    ++l;
  return l;
}

SharedRowLayout chooseSharedRowLayout(const BlockedLayout &in, const BlockedLayout &out, int64_t eltBytes,
                                      int64_t rowVec, bool swizzle, int64_t minSwizzleBytes) {
  SharedRowLayout padded;
  padded.padElements = 16 / eltBytes;
  const int64_t r = in.rank(), unit = 16 / eltBytes, rowLen = out.shape[r - 1], readVec = out.vec[r - 1];
  if (in.padded() || out.padded())
    return padded;
  if (!swizzle || eltBytes < minSwizzleBytes || 16 % eltBytes || rowLen % unit || !isPowerOfTwo(rowLen / unit) ||
      rowLen / unit < 2 || unit % rowVec || !isPowerOfTwo(in.vec[r - 1]) || (unit % readVec && readVec % unit))
    return padded;
  SharedRowLayout s;
  s.unit = unit, s.units = rowLen / unit, s.shift = log2Of(in.vec[r - 1]);
  return s;
}

} // namespace tk::compiler
