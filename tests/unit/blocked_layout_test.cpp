// Index arithmetic of blocked layouts and grouped reductions.
#include "tk/compiler/Layout/BlockedLayout.h"

#include <gtest/gtest.h>
#include <map>
#include <set>

using tk::compiler::BlockedLayout;
using tk::compiler::chooseBlockedLayout;
using tk::compiler::chooseUnpaddedBlockedLayout;
using tk::compiler::GroupedReduction;

namespace {

// Every in-shape element is owned by exactly one (thread, slot).
void expectBijection(const BlockedLayout &l) {
  std::map<std::vector<int64_t>, int> owners;
  int64_t threads = l.numWarps() * 32;
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t s = 0; s < l.slotsPerThread(); ++s) {
      auto c = l.coords(s, t);
      bool inside = true;
      for (int64_t d = 0; d < l.rank(); ++d)
        inside &= c[d] < l.shape[d];
      if (inside)
        ++owners[c];
    }
  int64_t elements = 1;
  for (int64_t d : l.shape)
    elements *= d;
  EXPECT_EQ((int64_t)owners.size(), elements) << l.str();
  for (auto &[c, n] : owners)
    EXPECT_EQ(n, 1) << l.str();
}

TEST(BlockedLayout, DefaultLayoutsCoverEveryElementOnce) {
  for (auto shape : std::vector<std::vector<int64_t>>{{4, 1024}, {32, 128}, {1, 576}, {8, 512}, {64, 64}, {1, 7168}, {3, 40}})
    for (int64_t vec : {4, 8, 16})
      expectBijection(chooseBlockedLayout(shape, 4, vec));
  // Row blocks for transposes.
  expectBijection(chooseBlockedLayout({1, 64, 64}, 4, 8, 4));
  expectBijection(chooseBlockedLayout({1, 64, 64}, 4, 16, 4));
  expectBijection(chooseBlockedLayout({128, 64}, 4, 4, 4));
}

TEST(BlockedLayout, ChoosesSixteenByteChunksAlongRows) {
  BlockedLayout l = chooseBlockedLayout({4, 1024}, 4, 16);
  EXPECT_EQ(l.vec, (std::vector<int64_t>{1, 16}));
  EXPECT_EQ(l.lanes, (std::vector<int64_t>{1, 32}));
  EXPECT_EQ(l.warps, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(l.slotsPerThread(), 32);
  // A single row puts every warp along it.
  EXPECT_EQ(chooseBlockedLayout({1, 576}, 4, 16).warps, (std::vector<int64_t>{1, 4}));
}

// Warps along rows: each of four token rows of 256 logits in its own warp, so
// a reduction along the row never crosses warps; the lanes stay on the row.
// Rows fewer than the warps leave the rest on the row, as the default does.
TEST(BlockedLayout, WarpsAlongRowsGiveEachRowItsOwnWarp) {
  BlockedLayout l = chooseBlockedLayout({4, 256}, 4, 1, 1, /*warpsAlongRows=*/true);
  EXPECT_EQ(l.lanes, (std::vector<int64_t>{1, 32}));
  EXPECT_EQ(l.warps, (std::vector<int64_t>{4, 1}));
  expectBijection(l);
  GroupedReduction g;
  std::string error;
  ASSERT_TRUE(GroupedReduction::analyze(l, 1, 256, g, error)) << error;
  EXPECT_EQ(g.warpsPerGroup, 1);
  // The default spreads each row over the four warps.
  GroupedReduction across;
  ASSERT_TRUE(GroupedReduction::analyze(chooseBlockedLayout({4, 256}, 4, 1), 1, 256, across, error)) << error;
  EXPECT_EQ(across.warpsPerGroup, 4);
  // Eight rows on four warps: two rows a warp; two rows: the other warps on the row.
  EXPECT_EQ(chooseBlockedLayout({8, 128}, 4, 1, 1, true).warps, (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(chooseBlockedLayout({2, 128}, 4, 1, 1, true).warps, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(chooseBlockedLayout({1, 576}, 4, 16, 1, true).warps, chooseBlockedLayout({1, 576}, 4, 16).warps);
  // Warps a short tile cannot use pad its rows rather than split them, where each row lies in one warp: a
  // (rows, slots) tile of 8 x 8 on 8 warps reduces its rows within warps (six are padding).
  BlockedLayout slots = chooseBlockedLayout({8, 8}, 8, 1, 1, true);
  EXPECT_EQ(slots.warps, (std::vector<int64_t>{8, 1}));
  expectBijection(slots);
  ASSERT_TRUE(GroupedReduction::analyze(slots, 1, 8, g, error)) << error;
  EXPECT_EQ(g.warpsPerGroup, 1);
  EXPECT_EQ(chooseBlockedLayout({8, 8}, 8, 1).warps, (std::vector<int64_t>{2, 4})); // the default splits them
  // Three dimensions (tokens, groups, experts of a group) and a column of per-row values.
  BlockedLayout groups = chooseBlockedLayout({4, 8, 32}, 4, 1, 1, true);
  EXPECT_EQ(groups.warps, (std::vector<int64_t>{4, 1, 1}));
  expectBijection(groups);
  for (auto shape : std::vector<std::vector<int64_t>>{{4, 1}, {16, 72}, {3, 40}, {64, 64}, {2, 4, 8}})
    for (int64_t vec : {1, 4})
      expectBijection(chooseBlockedLayout(shape, 4, vec, 1, true));
}

// 32-byte vectors (sm_100a) on tiles sized for 16-byte ones: the 64 x 64
// bf16 tile of the transposed b = 32 cast with 8 rows per thread fills 64 of
// its 64 threads' positions only with 16-byte vectors; 1024 bf16 columns on
// 4 warps likewise. The half vector is taken where it tiles the shape
// exactly, never where it would not (576 columns: padded either way).
TEST(BlockedLayout, UnpaddedLayoutsHalveVectorsThatIdleThreads) {
  BlockedLayout wide = chooseBlockedLayout({64, 64}, 2, 16, 8);
  EXPECT_TRUE(wide.padded()) << wide.str();
  BlockedLayout l = chooseUnpaddedBlockedLayout({64, 64}, 2, 16, 8);
  EXPECT_FALSE(l.padded()) << l.str();
  EXPECT_EQ(l.vec, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(l.lanes, (std::vector<int64_t>{4, 8}));
  expectBijection(l);
  BlockedLayout row = chooseUnpaddedBlockedLayout({1, 1024}, 4, 16);
  EXPECT_EQ(row.vec, (std::vector<int64_t>{1, 8}));
  EXPECT_FALSE(row.padded()) << row.str();
  EXPECT_EQ(chooseUnpaddedBlockedLayout({1, 576}, 4, 16).vec, chooseBlockedLayout({1, 576}, 4, 16).vec);
  // A layout that is not padded keeps its vector.
  EXPECT_EQ(chooseUnpaddedBlockedLayout({1, 7168 * 2}, 4, 16).vec, (std::vector<int64_t>{1, 16}));
}

// Reduced slot r of thread t holds group g iff every parent slot mapped to r
// lies in group g, and all threads sharing a group agree on its members.
void expectConsistentGrouping(const BlockedLayout &l, int64_t dim, int64_t group) {
  GroupedReduction g;
  std::string error;
  ASSERT_TRUE(GroupedReduction::analyze(l, dim, group, g, error)) << error << " " << l.str();
  int64_t threads = l.numWarps() * 32;
  std::map<std::vector<int64_t>, std::set<int64_t>> membersSeenByThreads;
  for (int64_t t = 0; t < threads; ++t) {
    std::map<int64_t, std::vector<int64_t>> groupOfReduced;
    for (int64_t s = 0; s < l.slotsPerThread(); ++s) {
      auto c = l.coords(s, t);
      std::vector<int64_t> key = c;
      key[dim] /= group;
      int64_t r = g.reducedSlotOf(s);
      ASSERT_LT(r, g.reducedSlots());
      auto [it, inserted] = groupOfReduced.emplace(r, key);
      if (!inserted && c[dim] < l.shape[dim]) {
        EXPECT_EQ(it->second, key) << "slot " << s << " of thread " << t << " in " << l.str();
      }
    }
  }
  // The lanes combined by the butterfly stay within one group.
  for (int64_t mask : g.laneMasks)
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t s = 0; s < l.slotsPerThread(); ++s) {
        auto a = l.coords(s, t), b = l.coords(s, t ^ mask);
        if (a[dim] >= l.shape[dim] || b[dim] >= l.shape[dim])
          continue; // padding slots contribute the identity
        for (int64_t d = 0; d < l.rank(); ++d)
          EXPECT_EQ(d == dim ? a[d] / group : a[d], d == dim ? b[d] / group : b[d]) << l.str();
      }
}

TEST(GroupedReduction, GroupsStayTogether) {
  expectConsistentGrouping(chooseBlockedLayout({4, 1024}, 4, 16), 1, 128);
  expectConsistentGrouping(chooseBlockedLayout({4, 1024}, 4, 16), 1, 16);
  expectConsistentGrouping(chooseBlockedLayout({4, 1024}, 4, 16), 1, 8);
  expectConsistentGrouping(chooseBlockedLayout({8, 512}, 4, 16), 1, 32);
  expectConsistentGrouping(chooseBlockedLayout({32, 128}, 4, 16), 1, 64);
  expectConsistentGrouping(chooseBlockedLayout({1, 2048}, 4, 4), 1, 2048);
  expectConsistentGrouping(chooseBlockedLayout({1, 576}, 4, 16), 1, 576);
  expectConsistentGrouping(chooseBlockedLayout({1, 7168}, 4, 16), 1, 7168);
}

TEST(GroupedReduction, KindsAndExchanges) {
  GroupedReduction g;
  std::string error;
  ASSERT_TRUE(GroupedReduction::analyze(chooseBlockedLayout({4, 1024}, 4, 16), 1, 128, g, error));
  EXPECT_EQ(g.kind, GroupedReduction::Kind::AcrossLanes);
  EXPECT_EQ(g.laneMasks, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(g.warpsPerGroup, 1);
  ASSERT_TRUE(GroupedReduction::analyze(chooseBlockedLayout({1, 7168}, 4, 16), 1, 7168, g, error));
  EXPECT_EQ(g.kind, GroupedReduction::Kind::WholeSpan);
  EXPECT_EQ(g.warpsPerGroup, 4);
  EXPECT_EQ(g.reducedSlots(), 1);
}

TEST(GroupedReduction, RejectsGroupsThatDoNotFit) {
  GroupedReduction g;
  std::string error;
  EXPECT_FALSE(GroupedReduction::analyze(chooseBlockedLayout({1, 96}, 4, 4), 1, 48, g, error));
  EXPECT_NE(error.find("group 48"), std::string::npos) << error;
  EXPECT_FALSE(GroupedReduction::analyze(chooseBlockedLayout({4, 1024}, 4, 16), 1, 24, g, error));
}

} // namespace
