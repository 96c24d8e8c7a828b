// The checks' two-call protocol (checks/two_calls.h) on the CPU placement:
// it finds an output the call left unwritten, results that differ between
// the two calls, values off their reference, and a failing call, and it
// hands each call its own buffers (seeded with `initial` when given).
#include "checks/two_calls.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {

using namespace tk::checks;

// An output of 4 f32 elements whose reference is 1, 2, 3, 4.
CheckedOutput fourValues(const void *initial = nullptr) {
  return {{4}, TK_F32, {1, 2, 3, 4}, within(1e-6, 0), initial};
}

void write(const tk_tensor &t, int64_t i, float v) { std::memcpy(static_cast<float *>(t.data) + i, &v, 4); }

TEST(TwoCalls, AgreeingCallsNearTheirReferencePass) {
  Placement p{};
  TwoCalls calls(p, {fourValues()});
  CheckResult r;
  ASSERT_TRUE(calls.run(r, [](const std::vector<tk_tensor> &o) {
    for (int64_t i = 0; i < 4; ++i)
      write(o[0], i, (float)(i + 1));
    return TK_SUCCESS;
  }));
  EXPECT_TRUE(r.exact()) << r.describe();
}

TEST(TwoCalls, AnUnwrittenElementIsOffItsReference) {
  Placement p{};
  TwoCalls calls(p, {fourValues()});
  CheckResult r;
  ASSERT_TRUE(calls.run(r, [](const std::vector<tk_tensor> &o) {
    for (int64_t i = 0; i < 3; ++i) // the last element keeps the poison
      write(o[0], i, (float)(i + 1));
    return TK_SUCCESS;
  }));
  EXPECT_EQ(r.outMismatches, 1);
  EXPECT_EQ(r.countMismatches, 0);
}

TEST(TwoCalls, CallsThatDifferAreCountedAndEachGetsItsOwnBuffers) {
  Placement p{};
  TwoCalls calls(p, {fourValues()});
  CheckResult r;
  std::vector<void *> seen;
  int call = 0;
  ASSERT_TRUE(calls.run(r, [&](const std::vector<tk_tensor> &o) {
    seen.push_back(o[0].data);
    for (int64_t i = 0; i < 4; ++i)
      write(o[0], i, (float)(i + 1) + (call == 1 && i == 2 ? 1e-3f : 0.0f));
    ++call;
    return TK_SUCCESS;
  }));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NE(seen[0], seen[1]);
  EXPECT_EQ(r.countMismatches, 1);
  EXPECT_EQ(r.outMismatches, 0); // the first call's values are the ones compared with the reference
}

TEST(TwoCalls, AccumulatingOutputsStartFromTheirInitialValuesEachCall) {
  const float start[4] = {0.5f, 1.5f, 2.5f, 3.5f};
  Placement p{};
  TwoCalls calls(p, {fourValues(start)});
  CheckResult r;
  ASSERT_TRUE(calls.run(r, [](const std::vector<tk_tensor> &o) {
    float *v = static_cast<float *>(o[0].data);
    for (int64_t i = 0; i < 4; ++i)
      v[i] += 0.5f; // accumulates into what it finds
    return TK_SUCCESS;
  }));
  EXPECT_TRUE(r.exact()) << r.describe();
}

TEST(TwoCalls, AFailingCallStopsTheCheck) {
  Placement p{};
  TwoCalls calls(p, {fourValues()});
  CheckResult r;
  EXPECT_FALSE(calls.run(r, [](const std::vector<tk_tensor> &) { return TK_ERROR_INVALID_ARGUMENT; }));
  EXPECT_EQ(r.status, TK_ERROR_INVALID_ARGUMENT);
  EXPECT_FALSE(r.exact());
}

} // namespace
