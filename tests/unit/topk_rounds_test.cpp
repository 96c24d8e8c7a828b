// topkColumns' two forms on the CPU path against a host sort
// (tests/kernels/topk_rounds_kernel.h), and both compiled for every target
// (the packed form's i64 reductions cross lanes as 32-bit halves).
#include "tests/kernels/topk_rounds_kernel.h"
#include "tk/dsl.hpp"

#include <gtest/gtest.h>

namespace {

using tk::dsl::TopkRounds;
using tk::test_kernels::buildTopkRounds;
using tk::test_kernels::checkTopkRounds;

template <TopkRounds Rounds> void expectHostOrder() {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::string error;
  EXPECT_EQ(checkTopkRounds<Rounds>(ctx, tk::checks::Placement{}, 12, error), 0) << error;
  tk_context_destroy(ctx);
}

TEST(TopkRounds, KeyThenPositionFollowsTheOrder) { expectHostOrder<TopkRounds::KeyThenPosition>(); }

TEST(TopkRounds, PackedFollowsTheOrder) { expectHostOrder<TopkRounds::Packed>(); }

size_t occurrences(const std::string &ptx, const std::string &what) {
  size_t n = 0;
  for (size_t at = ptx.find(what); at != std::string::npos; at = ptx.find(what, at + 1))
    ++n;
  return n;
}

TEST(TopkRounds, BothCompileForEveryTarget) {
  for (const char *target : {"sm_80", "sm_90a", "sm_100a"}) {
    std::string packed, plain;
    ASSERT_EQ(tk::compile(tk::factoryOf(buildTopkRounds<TopkRounds::Packed>), target, packed), TK_SUCCESS)
        << target << ": " << tk_last_error();
    ASSERT_EQ(tk::compile(tk::factoryOf(buildTopkRounds<TopkRounds::KeyThenPosition>), target, plain), TK_SUCCESS)
        << target << ": " << tk_last_error();
    // The i64 values cross lanes as 32-bit halves (no 64-bit shuffle exists).
    EXPECT_GT(occurrences(packed, "shfl.sync.bfly.b32"), 0u) << target;
    // One exchange through shared memory a round, not two: fewer barriers.
    EXPECT_LT(occurrences(packed, "bar.sync") + occurrences(packed, "barrier.sync"),
              occurrences(plain, "bar.sync") + occurrences(plain, "barrier.sync"))
        << target;
  }
}

} // namespace
