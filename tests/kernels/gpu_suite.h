// A test suite that shares one GPU session among its tests and skips each
// test visibly when no CUDA device is present.
#pragma once

#include "bench/gpu_session.h"

#include <gtest/gtest.h>

template <typename Suite> class GpuSuite : public ::testing::Test {
protected:
  static void SetUpTestSuite() { session = new tk::bench::GpuSession(); }
  static void TearDownTestSuite() {
    delete session;
    session = nullptr;
  }
  void SetUp() override {
    if (!session->ok())
      GTEST_SKIP() << "skipped: no CUDA device (" << session->status().message() << ")";
  }
  static inline tk::bench::GpuSession *session = nullptr;
};
