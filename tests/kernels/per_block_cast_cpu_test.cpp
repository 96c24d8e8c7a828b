// The per-block casts on the CPU path through the C API with host tensors,
// bit-exact against the C++ reference. Each check runs all three entry points
// (cast, sf_only, precomputed_sf) on one input.
#include "bench/per_block_cast_check.h"

#include <gtest/gtest.h>

namespace {

int runGrid(std::initializer_list<int64_t> ms, std::initializer_list<int64_t> ks, std::vector<uint32_t> flags,
            tk_format fmt = TK_FORMAT_E4M3) {
  tk_context ctx;
  EXPECT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int cases = 0;
  for (int64_t m : ms)
    for (int64_t k : ks)
      for (auto [b, g] : std::vector<std::pair<int64_t, int64_t>>{{128, 128}, {32, 32}, {128, 32}, {32, 128}})
        for (tk_dtype in : {TK_BF16, TK_F32})
          for (uint32_t f : flags) {
            tk::bench::PerBlockCastCase c{m, k, b, g, in, f, (uint64_t)(m + k), fmt};
            tk::bench::CheckResult r = tk::bench::checkPerBlockCast(nullptr, ctx, c, false);
            EXPECT_EQ(r.status, TK_SUCCESS) << tk::bench::describe(c) << ": " << r.error;
            EXPECT_EQ(r.outMismatches, 0) << tk::bench::describe(c);
            EXPECT_EQ(r.sfMismatches, 0) << tk::bench::describe(c);
            ++cases;
          }
  tk_context_destroy(ctx);
  return cases;
}

// Suite names Cpu_<kernel>: the coverage test looks for them.
TEST(Cpu_per_block_cast, SmallGridIsBitExact) {
  int n = runGrid({1, 37, 200}, {576, 2048}, {0u, TK_ROUND_SF, TK_ROUND_SF | TK_SF_COL_MAJOR});
  std::printf("[ per_block_cast ] %d CPU cases compared (cast, sf_only, precomputed_sf each)\n", n);
}

TEST(Cpu_per_block_cast, PackedUe8m0ScaleFactorsAreBitExact) {
  const uint32_t ttt = TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0;
  runGrid({37, 200}, {576, 2048}, {ttt});
  runGrid({200}, {576}, {ttt}, TK_FORMAT_E2M1);
}

TEST(Cpu_per_block_cast, E2M1OutputIsBitExact) {
  int n = runGrid({1, 37, 200}, {576, 2048}, {TK_ROUND_SF, TK_ROUND_SF | TK_SF_COL_MAJOR}, TK_FORMAT_E2M1);
  std::printf("[ per_block_cast ] %d CPU e2m1 cases compared\n", n);
}

TEST(Cpu_per_block_cast_with_sf_only, PartialBlocksAreBitExact) {
  runGrid({129}, {7168}, {TK_ROUND_SF | TK_SF_COL_MAJOR});
}

TEST(Cpu_per_block_cast_with_precomputed_sf, PartialBlocksAreBitExact) { runGrid({33}, {2560}, {TK_ROUND_SF}); }

} // namespace
