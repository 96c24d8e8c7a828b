// The blocked layouts tile.dot runs from registers with: which shapes get
// them, and that they are mma.sync's fragments up to the documented
// permutations (MmaLayouts.h), checked element by element through coords().
#include "tk/compiler/Layout/MmaLayouts.h"

#include <array>
#include <gtest/gtest.h>
#include <set>

using tk::compiler::areMmaRegisterLayouts;
using tk::compiler::BlockedLayout;
using tk::compiler::chooseMmaRegisterLayouts;
using tk::compiler::MmaRegisterLayouts;
using tk::compiler::mmaRhsRegisterLayout;
using tk::compiler::whyNotMmaRegisterLayouts;

namespace {

TEST(MmaLayouts, ChoosesTheWidestVectorThatFits) {
  // bf16 lhs x f32 rhs (mhc_pre_norm_fn): 8 bf16 per lane, a 32-byte rhs run.
  std::optional<MmaRegisterLayouts> l = chooseMmaRegisterLayouts(64, 256, 24, 4, 2, 4, false, 16);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->lhs.vec, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(l->lhs.lanes, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(l->lhs.warps, (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(l->acc.vec, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(l->acc.shape, (std::vector<int64_t>{64, 24}));
  // f32 x f32 with 16-byte vectors: 4; K = 8 leaves 2, TF32's step.
  EXPECT_EQ(chooseMmaRegisterLayouts(64, 64, 8, 4, 4, 4, false, 16)->lhs.vec[1], 4);
  EXPECT_EQ(chooseMmaRegisterLayouts(16, 8, 8, 1, 4, 4, false, 16)->lhs.vec[1], 2);
  // bf16 x bf16: 4 K-consecutive elements per step.
  EXPECT_EQ(chooseMmaRegisterLayouts(32, 16, 8, 2, 2, 2, true, 16)->lhs.vec[1], 4);
}

TEST(MmaLayouts, RefusesWhatTheFragmentsCannotHold) {
  EXPECT_FALSE(chooseMmaRegisterLayouts(32, 64, 8, 4, 2, 4, false, 16));  // 8 rows per warp
  EXPECT_FALSE(chooseMmaRegisterLayouts(64, 64, 12, 4, 2, 4, false, 16)); // N not whole 8-column tiles
  EXPECT_FALSE(chooseMmaRegisterLayouts(64, 8, 8, 4, 2, 2, true, 16));    // bf16 K = 8: 2 per lane < 4
  EXPECT_FALSE(chooseMmaRegisterLayouts(64, 64, 8, 0, 2, 4, false, 16));
}

TEST(MmaLayouts, RecognisesOnlyItsOwnChoices) {
  MmaRegisterLayouts l = *chooseMmaRegisterLayouts(64, 128, 16, 4, 2, 4, false, 16);
  EXPECT_TRUE(areMmaRegisterLayouts(l.lhs, l.acc, 4, 4, false));
  EXPECT_FALSE(areMmaRegisterLayouts(l.lhs, l.acc, 2, 4, false)); // other warps
  EXPECT_FALSE(areMmaRegisterLayouts(l.lhs, l.acc, 4, 8, false)); // an 8-byte rhs run of 8: 64 bytes
  BlockedLayout wide = l.acc;
  wide.vec = {1, 4};
  EXPECT_FALSE(areMmaRegisterLayouts(l.lhs, wide, 4, 4, false));
  BlockedLayout lanes = l.lhs;
  lanes.lanes = {4, 8};
  EXPECT_FALSE(areMmaRegisterLayouts(lanes, l.acc, 4, 4, false));
  // A vector of 6 covers K = 96 in whole steps, but its rhs runs (24 bytes) are not aligned to their size.
  BlockedLayout six{{64, 96}, {1, 6}, {8, 4}, {4, 1}};
  EXPECT_NE(whyNotMmaRegisterLayouts(six, l.acc, 4, 4, false).find("do not fit"), std::string::npos);
  EXPECT_NE(whyNotMmaRegisterLayouts(l.lhs, l.acc, 8, 4, false).find("M = 64 is not a multiple of 16 rows x 8 warps"),
            std::string::npos);
  EXPECT_NE(whyNotMmaRegisterLayouts(l.lhs, l.acc, 2, 4, false).find("the lhs is laid out as"), std::string::npos);
  EXPECT_EQ(whyNotMmaRegisterLayouts(l.lhs, l.acc, 4, 4, false), "");
}

// What the register product relies on, for every thread: (1) the lhs's and
// the accumulator's row slots hold the same rows, so each product lands on
// the thread that owns its row; (2) lane (g, t) holds row g of its warp's
// 8-row groups, the lanes of one g the same rows; (3) its accumulator
// columns are 2t, 2t + 1 of each 8-column tile, mma's c registers; (4) its
// lhs columns are t V .. t V + V - 1 of each 4V group, which the K
// permutation maps onto mma's a registers (and the rhs reads alike).
TEST(MmaLayouts, ThreadsHoldMmaFragmentsUpToPermutation) {
  const int64_t m = 64, k = 128, n = 24, warps = 4;
  MmaRegisterLayouts l = *chooseMmaRegisterLayouts(m, k, n, warps, 2, 4, false, 16);
  const int64_t v = l.lhs.vec[1];
  for (int64_t thread = 0; thread < warps * 32; ++thread) {
    const int64_t lane = thread % 32, warp = thread / 32, g = lane / 4, t = lane % 4;
    std::set<int64_t> lhsRows, accRows;
    for (int64_t s = 0; s < l.lhs.slotsPerThread(); ++s) {
      std::vector<int64_t> c = l.lhs.coords(s, thread);
      lhsRows.insert(c[0]);
      EXPECT_EQ(c[0] % (8 * warps), warp * 8 + g) << "thread " << thread;
      EXPECT_EQ(c[1] % (4 * v) / v, t) << "thread " << thread;
    }
    for (int64_t s = 0; s < l.acc.slotsPerThread(); ++s) {
      std::vector<int64_t> c = l.acc.coords(s, thread);
      accRows.insert(c[0]);
      EXPECT_EQ(c[1] % 8 / 2, t) << "thread " << thread;
    }
    EXPECT_EQ(lhsRows, accRows) << "thread " << thread;
    EXPECT_EQ((int64_t)lhsRows.size() % 2, 0); // row slots pair up as a 16-row tile's g and g + 8
  }
}

// A one-warp kernel's transposed rhs [N, K] in registers: the slot the
// lowering takes for column tile j, repetition q, element v
// (MmaRegisters.cpp) holds rhs[8 j + g][4 V q + t V + v] on lane (g, t),
// the element the staged path reads for the same b register; only one
// warp, N a multiple of 8.
TEST(MmaLayouts, OneWarpRhsSlotsAreTheBRegisters) {
  for (auto [k, n, lhsBytes] : {std::array<int64_t, 3>{128, 24, 2}, {64, 8, 4}, {256, 32, 2}}) {
    MmaRegisterLayouts l = *chooseMmaRegisterLayouts(32, k, n, 1, lhsBytes, 4, false, 16);
    std::optional<BlockedLayout> rhs = mmaRhsRegisterLayout(l.lhs, n, 1);
    ASSERT_TRUE(rhs);
    const int64_t v = l.lhs.vec[1], reps = k / (4 * v);
    EXPECT_EQ(rhs->reps(1), l.lhs.reps(1));
    EXPECT_EQ(rhs->slotsPerThread(), n / 8 * reps * v);
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t j = 0; j < n / 8; ++j)
        for (int64_t q = 0; q < reps; ++q)
          for (int64_t e = 0; e < v; ++e) {
            std::vector<int64_t> c = rhs->coords(rhs->slotIndex(BlockedLayout::SlotPos{{j, q}, {0, e}}), lane);
            EXPECT_EQ(c, (std::vector<int64_t>{8 * j + lane / 4, 4 * v * q + lane % 4 * v + e}))
                << "k " << k << " n " << n << " lane " << lane << " j " << j << " q " << q << " v " << e;
          }
  }
  MmaRegisterLayouts l = *chooseMmaRegisterLayouts(64, 128, 24, 2, 2, 4, false, 16);
  EXPECT_FALSE(mmaRhsRegisterLayout(l.lhs, 24, 2)); // two warps share a staged rhs
  EXPECT_FALSE(mmaRhsRegisterLayout(l.lhs, 12, 1));
}

} // namespace
