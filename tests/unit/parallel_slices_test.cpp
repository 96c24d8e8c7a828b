// The checks' host parallelism (checks/parallel_slices.h, checks/random_draws.h): every index is visited once, a
// slice's bounds follow from its number alone, and a case's draws follow from its seed, not from the threads.
#include "checks/parallel_slices.h"
#include "checks/random_draws.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tk::checks::forSlices;

TEST(ParallelSlices, EveryIndexOnceInSlicesFixedByTheirNumber) {
  for (int64_t count : {0, 1, 63, 64, 65, 1000, 4097})
    for (int64_t per : {1, 7, 64, 5000}) {
      std::vector<std::atomic<int>> seen(count);
      std::atomic<int64_t> slices{0};
      forSlices(count, per, [&](int64_t begin, int64_t end, int64_t slice) {
        EXPECT_EQ(begin, slice * per);
        EXPECT_EQ(end, std::min(count, (slice + 1) * per));
        for (int64_t i = begin; i < end; ++i)
          ++seen[i];
        ++slices;
      });
      EXPECT_EQ(slices.load(), (count + per - 1) / per) << count << " / " << per;
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(seen[i].load(), 1) << "index " << i << " of " << count << " in slices of " << per;
    }
}

// A throwing slice (bad_alloc, say) reaches the caller once every thread has joined, as on one thread, instead of
// terminating the process from a worker.
TEST(ParallelSlices, AnExceptionInASliceReachesTheCaller) {
  for (int64_t thrower : {0, 50, 99})
    EXPECT_THROW(forSlices(1000, 10,
                           [&](int64_t, int64_t, int64_t slice) {
                             if (slice == thrower)
                               throw std::runtime_error("slice " + std::to_string(slice));
                           }),
                 std::runtime_error);
}

TEST(ParallelSlices, ParallelRowsCoversEveryRowOnce) {
  for (int64_t n : {0, 1, 100, 100000}) {
    std::vector<std::atomic<int>> seen(n);
    tk::checks::parallelRows(n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        ++seen[i];
    });
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(seen[i].load(), 1) << "row " << i << " of " << n;
  }
}

// Up to kDrawSlice elements the draws are the generator's own sequence; past it, slices of their own generators:
// the same seed gives the same tensor, another seed another one.
TEST(ParallelSlices, DrawsFollowFromTheSeed) {
  std::mt19937 a(7), b(7);
  std::normal_distribution<float> normal;
  const std::vector<float> small = tk::checks::randn(a, 1000);
  for (int64_t i = 0; i < 1000; ++i)
    ASSERT_EQ(small[i], normal(b)) << i;

  const int64_t large = 3 * tk::checks::kDrawSlice + 5;
  std::mt19937 c(11), d(11), e(12);
  const std::vector<uint16_t> x = tk::checks::randnBf16(c, large, 64, 16), y = tk::checks::randnBf16(d, large, 64, 16),
                              z = tk::checks::randnBf16(e, large, 64, 16);
  EXPECT_EQ(x, y);
  EXPECT_NE(x, z);
  // Slice s comes from mt19937(seed + s 0x9E3779B9), seed being the caller's generator's next output, which moves
  // that generator on by one draw: the slice's number decides its values, not the thread that drew it.
  std::mt19937 caller(11);
  const uint32_t seed = caller();
  std::mt19937 second(seed + 0x9E3779B9u);
  std::normal_distribution<float> secondNormal;
  for (int64_t i = tk::checks::kDrawSlice; i < tk::checks::kDrawSlice + 1000; ++i)
    ASSERT_EQ(x[i], tk::checks::bf16Bits(secondNormal(second) * (1.0f + 0.01f * (float)((i % 64) / 16)))) << i;
  EXPECT_EQ(c(), caller());
}

} // namespace
