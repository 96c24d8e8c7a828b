// The shared-memory layout of transposes (SharedRowLayout): when it swizzles,
// and a bank model of a warp's accesses showing what the swizzle buys.
#include "tk/compiler/Layout/SharedRowLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

using tk::compiler::BlockedLayout;
using tk::compiler::chooseBlockedLayout;
using tk::compiler::chooseSharedRowLayout;
using tk::compiler::SharedRowLayout;

namespace {

/// Shared-memory wavefronts of one warp access: the most distinct 4-byte
/// words any of the 32 banks serves.
int64_t wavefronts(const std::vector<int64_t> &startBytes, int64_t width) {
  std::map<int64_t, std::set<int64_t>> wordsOfBank;
  for (int64_t a : startBytes)
    for (int64_t w = a / 4; w <= (a + width - 1) / 4; ++w)
      wordsOfBank[w % 32].insert(w);
  int64_t most = 0;
  for (auto &[bank, words] : wordsOfBank)
    most = std::max<int64_t>(most, words.size());
  return most;
}

struct Cost {
  int64_t writes = 0, minWrites = 0, reads = 0, minReads = 0;
};

/// Wavefronts of the transpose of an R x C tile of `eltBytes` elements on
/// 4 warps, with the layouts tile-assign-layouts gives it (16-byte vectors,
/// 4-row blocks on the input), summed over every warp-wide access.
Cost transposeCost(int64_t rows, int64_t cols, int64_t eltBytes, bool swizzle, SharedRowLayout *chosen = nullptr) {
  const int64_t vec = 16 / eltBytes;
  BlockedLayout in = chooseBlockedLayout({rows, cols}, 4, vec, 4), out = chooseBlockedLayout({cols, rows}, 4, vec);
  const int64_t rowVec = in.vec[0];
  SharedRowLayout l = chooseSharedRowLayout(in, out, eltBytes, rowVec, swizzle);
  if (chosen)
    *chosen = l;
  const int64_t rowBytes = (rows + l.padElements) * eltBytes;
  auto address = [&](int64_t row, int64_t col) { return row * rowBytes + l.physicalColumn(row, col) * eltBytes; };
  Cost c;
  for (int64_t s = 0; s < in.slotsPerThread(); ++s) {
    if (in.slotPos(s).v[0] % rowVec)
      continue;
    for (int64_t w = 0; w < 4; ++w) {
      std::vector<int64_t> starts;
      for (int64_t lane = 0; lane < 32; ++lane) {
        std::vector<int64_t> x = in.coords(s, w * 32 + lane); // (input row, input col)
        starts.push_back(address(x[1], x[0]));
      }
      c.writes += wavefronts(starts, rowVec * eltBytes);
      c.minWrites += std::max<int64_t>(1, 32 * rowVec * eltBytes / 128);
    }
  }
  const int64_t piece = l.swizzled() ? std::min(out.vec[1], l.unit) : out.vec[1];
  for (int64_t s = 0; s < out.slotsPerThread(); s += piece)
    for (int64_t w = 0; w < 4; ++w) {
      std::vector<int64_t> starts;
      for (int64_t lane = 0; lane < 32; ++lane) {
        std::vector<int64_t> x = out.coords(s, w * 32 + lane);
        starts.push_back(address(x[0], x[1]));
      }
      c.reads += wavefronts(starts, piece * eltBytes);
      c.minReads += std::max<int64_t>(1, 32 * piece * eltBytes / 128);
    }
  return c;
}

TEST(SharedRowLayout, SwizzledBf16TransposesAreConflictFree) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{64, 64}, {128, 64}}) {
    SharedRowLayout l;
    Cost swizzled = transposeCost(rows, cols, 2, true, &l);
    EXPECT_TRUE(l.swizzled()) << rows << "x" << cols;
    EXPECT_EQ(l.shift, 3); // 8-element input vectors
    EXPECT_EQ(swizzled.writes, swizzled.minWrites) << rows << "x" << cols;
    EXPECT_EQ(swizzled.reads, swizzled.minReads) << rows << "x" << cols;
    // Padded rows: neighbouring threads write rows 8 apart, 8 x 144 bytes,
    // a multiple of 128: 4x the wavefronts (the conflicts ncu measured).
    Cost padded = transposeCost(rows, cols, 2, false, &l);
    EXPECT_FALSE(l.swizzled());
    EXPECT_EQ(l.padElements, 8);
    EXPECT_EQ(padded.writes, 4 * padded.minWrites) << rows << "x" << cols;
    EXPECT_EQ(padded.reads, padded.minReads);
  }
}

TEST(SharedRowLayout, Float32SwizzledAndBytesPadded) {
  SharedRowLayout l;
  Cost f32 = transposeCost(64, 64, 4, true, &l);
  EXPECT_TRUE(l.swizzled());
  EXPECT_EQ(f32.writes, f32.minWrites);
  EXPECT_EQ(f32.reads, f32.minReads);
  transposeCost(128, 64, 1, true, &l); // one-byte elements keep padded rows (measured slower swizzled)
  EXPECT_FALSE(l.swizzled());
  EXPECT_EQ(l.padElements, 16);
}

TEST(SharedRowLayout, SwizzleIsABijectionWithinEachRow) {
  SharedRowLayout l;
  l.unit = 8, l.units = 8, l.shift = 3;
  for (int64_t row = 0; row < 128; ++row) {
    std::set<int64_t> cols;
    for (int64_t col = 0; col < 64; ++col) {
      int64_t p = l.physicalColumn(row, col);
      EXPECT_GE(p, 0);
      EXPECT_LT(p, 64);
      EXPECT_EQ(p % 8, col % 8); // 16-byte units move whole
      cols.insert(p);
    }
    EXPECT_EQ(cols.size(), 64u) << "row " << row;
  }
}

} // namespace
