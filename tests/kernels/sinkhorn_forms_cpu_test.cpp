// sinkhorn_normalize rolled (a loop over the repeat count, the backward's
// snapshots in shared memory) against unrolled on the CPU path: the same
// bits; mhc_pre_big_fuse following the forward's form; and the
// schedule's refusal of snapshots that no target holds.
#include "tests/kernels/sinkhorn_forms.h"

#include "checks/fused_mhc_check.h"
#include "tk/runtime/Context.h"
#include "tk/tk.h"

#include <algorithm>

namespace {

TEST(Cpu_sinkhorn_normalize, RolledGivesTheUnrolledBits) {
  for (bool backward : {false, true})
    tk::test::expectRolledGivesTheUnrolledBits(nullptr, tk::test::sinkhornFormCases(backward, 37));
  // Another tile: 8 matrices of 4 x 4 a CTA, 64 threads.
  tk::test::expectRolledGivesTheUnrolledBits(nullptr, {{100, 4, 10, true, 3}}, "rows=8,threads=64");
}

// The fused operator takes the forward's schedule as the chain's call resolves it, rolled or not: its mixes kernel
// in the same form, every output the chain's bits (checkBigFuse runs the chain in the same context).
TEST(Cpu_sinkhorn_normalize, BigFuseFollowsTheForwardsForm) {
  for (bool rolled : {true, false}) {
    tk::test::ScheduledContext ctx(rolled ? "" : "sinkhorn_normalize_fwd:rolled=0");
    tk::checks::CheckResult r = tk::checks::checkBigFuse(nullptr, ctx, {37, 4, 256, 10}, false);
    EXPECT_TRUE(r.exact()) << r.describe();
    const std::vector<std::string> built = static_cast<tk_context>(ctx)->cpuCache.configs();
    auto mixes = std::find_if(built.begin(), built.end(), [](const std::string &config) {
      return config.rfind("mhc_pre_big_fuse_mixes:", 0) == 0;
    });
    ASSERT_NE(mixes, built.end()) << "no mixes kernel among " << built.size() << " built";
    EXPECT_EQ(mixes->find(",rolled") != std::string::npos, rolled) << *mixes;
  }
}

TEST(Cpu_sinkhorn_normalize, RolledSnapshotsBeyondEveryTargetAreRefused) {
  // 256 matrices of 4 x 4 at repeat 10: 10 column steps of 80 bytes and 9 row steps of 16 a matrix, 241664 bytes.
  tk::test::ScheduledContext ctx("sinkhorn_normalize_bwd:rolled=1,rows=256,threads=1024");
  tk::checks::CheckResult r = tk::checks::checkSinkhorn(nullptr, ctx, {300, 4, 10, true}, false);
  EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(r.error.find("sinkhorn_normalize_bwd: rolled: the backward's snapshots take 241664 bytes of shared "
                         "memory, more than 160 KB; take fewer rows"),
            std::string::npos)
      << r.error;
  // The forward keeps no snapshots: the same tile is fine.
  tk::test::ScheduledContext forward("sinkhorn_normalize_fwd:rolled=1,rows=256,threads=1024");
  r = tk::checks::checkSinkhorn(nullptr, forward, {300, 4, 10, false}, false);
  EXPECT_TRUE(r.exact()) << r.describe();
}

} // namespace
