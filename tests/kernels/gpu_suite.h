// A test suite that shares one GPU session among its tests and skips each
// test visibly when no CUDA device is present.
#pragma once

#include "checks/expf_oracle.h"
#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"

#include <cstdio>
#include <optional>
#include <string>

#include <gtest/gtest.h>

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
  /// Whether `bytes` of shared memory per block (and 4 KB for the block
  /// reductions) fit this device (163 KB on an A100, 99 KB on sm_86 and
  /// sm_89); says so when they do not, for the caller to skip `what`.
  static bool sharedFits(const std::string &what, int64_t bytes) {
    const int limit = session->device().maxSharedPerBlockOptin;
    if (bytes + 4096 <= limit)
      return true;
    std::printf("[ skipped ] %s: %lld bytes of shared memory, the device allows %d\n", what.c_str(), (long long)bytes,
                limit);
    return false;
  }
  static inline tk::checks::GpuSession *session = nullptr;

private:
  /// Frees a test's device buffers when it ends (tests run side by side share the GPU's memory).
  std::optional<tk::checks::GpuSession::Scope> testScope_;
};

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

/// Skips the test visibly when the build has no nvcc-compiled expf oracle
/// (the SwiGLU suites' reference exponential).
#define TK_SKIP_WITHOUT_EXPF_ORACLE()                                                                           \
  if (!tk::checks::haveExpfOracle())                                                                              \
  GTEST_SKIP() << "skipped: this build has no expf oracle (nvcc was not found at configure time)"
