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
/// `shape` overrides those defaults: the input's vector along its rows (the
/// kernel's widest access, e.g. 8 for e4m3 cast from bf16), its rows per
/// thread (KernelBuilder::transposeRowsPerThread), the warps, and the
/// smallest element size swizzled.
struct TransposeShape {
  int64_t inVec = 0, rowsPerThread = 4, warps = 4, minSwizzleBytes = 2;
};

Cost transposeCost(int64_t rows, int64_t cols, int64_t eltBytes, bool swizzle, SharedRowLayout *chosen = nullptr,
                   TransposeShape shape = {}) {
  const int64_t vec = shape.inVec ? shape.inVec : 16 / eltBytes, warps = shape.warps;
  BlockedLayout in = chooseBlockedLayout({rows, cols}, warps, vec, shape.rowsPerThread),
                out = chooseBlockedLayout({cols, rows}, warps, 16 / eltBytes);
  const int64_t rowVec = in.vec[0];
  SharedRowLayout l = chooseSharedRowLayout(in, out, eltBytes, rowVec, swizzle, shape.minSwizzleBytes);
  if (chosen)
    *chosen = l;
  const int64_t rowBytes = (rows + l.padElements) * eltBytes;
  auto address = [&](int64_t row, int64_t col) { return row * rowBytes + l.physicalColumn(row, col) * eltBytes; };
  Cost c;
  for (int64_t s = 0; s < in.slotsPerThread(); ++s) {
    if (in.slotPos(s).v[0] % rowVec)
      continue;
    for (int64_t w = 0; w < warps; ++w) {
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
    for (int64_t w = 0; w < warps; ++w) {
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

TEST(SharedRowLayout, Float32Swizzled) {
  SharedRowLayout l;
  Cost f32 = transposeCost(64, 64, 4, true, &l);
  EXPECT_TRUE(l.swizzled());
  EXPECT_EQ(f32.writes, f32.minWrites);
  EXPECT_EQ(f32.reads, f32.minReads);
}

// The e4m3 transposes of the shipped kernels (their input vectors, rows per
// thread and warps): padded rows (minSwizzleBytes 2) make the
// lanes whose rows lie 8 apart write one bank, 4x to 8x the store
// wavefronts, as Nsight Compute measured (13.1 M conflicts in
// 15.2 M); swizzled, the 128-row transposes are conflict-free and the
// narrower ones (rows of 64 or 32 bytes, half the banks or less) take 2x.
TEST(SharedRowLayout, OneByteTransposesSwizzled) {
  struct Case {
    const char *name;
    int64_t rows, cols;
    TransposeShape shape;
    int64_t paddedWrites, swizzledWrites; // times the minimum
  };
  for (Case c : {Case{"per_channel_cast_and_transpose b=128", 128, 64, {8, 8, 2}, 4, 1},
                 Case{"per_channel_cast_and_transpose b=32", 64, 64, {8, 8, 2}, 4, 2},
                 Case{"batched_transpose e4m3", 128, 128, {16, 4, 8}, 8, 1},
                 Case{"swiglu transposed b=128", 128, 32, {8, 4, 4}, 4, 2}}) {
    SharedRowLayout l;
    c.shape.minSwizzleBytes = 2;
    Cost padded = transposeCost(c.rows, c.cols, 1, true, &l, c.shape);
    EXPECT_FALSE(l.swizzled()) << c.name;
    EXPECT_EQ(l.padElements, 16) << c.name;
    EXPECT_EQ(padded.writes, c.paddedWrites * padded.minWrites) << c.name << ": " << padded.writes << " / " << padded.minWrites;
    c.shape.minSwizzleBytes = 1;
    Cost swizzled = transposeCost(c.rows, c.cols, 1, true, &l, c.shape);
    EXPECT_TRUE(l.swizzled()) << c.name;
    EXPECT_EQ(swizzled.writes, c.swizzledWrites * swizzled.minWrites) << c.name << ": " << swizzled.writes << " / " << swizzled.minWrites;
    EXPECT_EQ(swizzled.reads, swizzled.minReads) << c.name;
  }
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
