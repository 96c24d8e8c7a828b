// A test suite that shares one GPU session among its tests and skips each
// test visibly when no CUDA device is present.
#pragma once

#include "checks/expf_oracle.h"
#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tests/kernels/schedule_context.h"

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

/// Expects each checked case to have run without mismatches, counts them and
/// prints "[ name ] passed of total cases bit-exact on <GPU>".
struct CaseTally {
  int passed = 0, total = 0;
  void check(const tk::checks::CheckResult &r, const std::string &what) {
    EXPECT_EQ(r.status, TK_SUCCESS) << what << ": " << r.error;
    EXPECT_EQ(r.outMismatches, 0) << what;
    EXPECT_EQ(r.sfMismatches, 0) << what;
    EXPECT_EQ(r.countMismatches, 0) << what;
    passed += r.status == TK_SUCCESS && r.outMismatches == 0 && r.sfMismatches == 0 && r.countMismatches == 0;
    ++total;
  }
  void report(const std::string &name, const tk::checks::GpuSession &gpu) const {
    std::printf("[ %s ] %d of %d cases bit-exact on %s\n", name.c_str(), passed, total, gpu.device().name.c_str());
  }
};

template <typename Suite> class GpuSuite : public ::testing::Test {
protected:
  static void SetUpTestSuite() { session = new tk::checks::GpuSession(); }
  static void TearDownTestSuite() {
    delete session;
    session = nullptr;
  }
  void SetUp() override {
    if (!session->ok())
      GTEST_SKIP() << "skipped: no CUDA device (" << session->status().message() << ")";
    testScope_.emplace(*session);
  }
  void TearDown() override { testScope_.reset(); }
  /// Whether `bytes` of shared memory per block (and 1 KB for the block
  /// reductions' scratch: 144 bytes on 256 threads) fit this device (227 KB
  /// on an H100, 163 KB on an A100, 99 KB on sm_86 and sm_89); says so when
  /// they do not, for the caller to skip `what`.
  static bool sharedFits(const std::string &what, int64_t bytes) {
    const int limit = session->device().maxSharedPerBlockOptin;
    if (bytes + 1024 <= limit)
      return true;
    std::printf("[ skipped ] %s: %lld bytes of shared memory, the device allows %d\n", what.c_str(), (long long)bytes,
                limit);
    return false;
  }
  /// Checks every case under each schedule of `op` (its fields, and the
  /// shared memory per block it needs, 0 when it fits any device) in a
  /// context made with that TK_SCHEDULE, skipping, visibly, a schedule this
  /// device cannot hold; prints "[ op schedules ] passed of total ...".
  template <typename Case, typename Check>
  static void checkSchedules(const std::string &op, const std::vector<std::pair<const char *, int64_t>> &schedules,
                             const std::vector<Case> &cases, Check check) {
    CaseTally tally;
    for (auto [schedule, bytes] : schedules) {
      if (bytes > 0 && !sharedFits(op + ":" + schedule, bytes))
        continue;
      tk::test::ScheduledContext ctx(op + ":" + schedule);
      for (const Case &c : cases) {
        tk::checks::GpuSession::Scope caseBuffers(*session);
        tally.check(check(session, ctx, c, false), std::string(schedule) + " " + tk::checks::describe(c));
      }
    }
    tally.report(op + " schedules", *session);
  }
  static inline tk::checks::GpuSession *session = nullptr;

private:
  /// Frees a test's device buffers when it ends (tests run side by side share the GPU's memory).
  std::optional<tk::checks::GpuSession::Scope> testScope_;
};

/// Skips the test visibly when the build has no nvcc-compiled expf oracle
/// (the SwiGLU suites' reference exponential).
#define TK_SKIP_WITHOUT_EXPF_ORACLE()                                                                           \
  if (!tk::checks::haveExpfOracle())                                                                              \
  GTEST_SKIP() << "skipped: this build has no expf oracle (nvcc was not found at configure time)"
