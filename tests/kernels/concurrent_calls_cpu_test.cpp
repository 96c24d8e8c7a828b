// Calls from 8 threads at once, on one shared context and on a context per
// thread, through the C API on the CPU path: every result bit-exact against
// the C++ reference. The ThreadSanitizer build (scripts/sanitize.sh thread)
// runs this test for races in the contexts' caches, schedules and error state.
#include "checks/cast_back_check.h"
#include "checks/per_token_cast_check.h"
#include "checks/swiglu_check.h"
#include "checks/transpose_check.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace tk::checks;

constexpr int kThreads = 8;
constexpr int kRounds = 3;

/// Each thread's calls: four operators (different kernels, so that threads
/// compile, look up and launch at the same time), with per-thread shapes so
/// that some kernels are shared between threads and some are not.
std::vector<std::function<CheckResult(tk_context)>> callsOf(int thread) {
  const int64_t m = 16 + 8 * (thread % 3);
  PerTokenCastCase token{m, 2048, thread % 2 ? 32 : 128, TK_BF16, TK_ROUND_SF};
  token.seed = 1 + thread;
  CastBackCase back{m, 2048, 1, 128, thread % 2 ? TK_F32 : TK_BF16};
  TransposeCase transpose{1 + thread % 2, 128, 192, TK_BF16};
  SwigluCastCase swiglu{1024, 128};
  swiglu.plainRows = m, swiglu.weights = true, swiglu.clamp = 0.5f, swiglu.count = true;
  swiglu.seed = 1 + thread;
  return {
      [token](tk_context ctx) { return checkPerTokenCast(nullptr, ctx, token, makeInput(token), false); },
      [back](tk_context ctx) { return checkCastBack(nullptr, ctx, back, false); },
      [transpose](tk_context ctx) { return checkTranspose(nullptr, ctx, transpose, false); },
      [swiglu](tk_context ctx) { return checkSwigluPerTokenCast(nullptr, ctx, swiglu, false); },
  };
}

/// Runs every thread's calls kRounds times; returns the descriptions of the
/// calls that failed or differed from the reference.
std::vector<std::string> runThreads(const std::function<tk_context(int)> &contextOf) {
  std::vector<std::vector<std::string>> failures(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      auto calls = callsOf(t);
      ready.fetch_add(1);
      while (ready.load() < kThreads) // start together: the first calls compile concurrently
        std::this_thread::yield();
      for (int round = 0; round < kRounds; ++round)
        for (size_t i = 0; i < calls.size(); ++i) {
          CheckResult r = calls[i](contextOf(t));
          if (!r.exact())
            failures[t].push_back("thread " + std::to_string(t) + " call " + std::to_string(i) + " round " +
                                  std::to_string(round) + ": " + r.verdict());
        }
    });
  for (std::thread &th : threads)
    th.join();
  std::vector<std::string> all;
  for (auto &f : failures)
    all.insert(all.end(), f.begin(), f.end());
  return all;
}

TEST(ConcurrentCalls, SharedContextFromEightThreadsIsBitExact) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::vector<std::string> failures = runThreads([ctx](int) { return ctx; });
  tk_context_destroy(ctx);
  EXPECT_TRUE(failures.empty()) << failures.size() << " failures, first: " << failures.front();
}

TEST(ConcurrentCalls, ContextPerThreadIsBitExact) {
  std::vector<tk_context> contexts(kThreads);
  for (tk_context &c : contexts)
    ASSERT_EQ(tk_context_create(&c), TK_SUCCESS);
  std::vector<std::string> failures = runThreads([&contexts](int t) { return contexts[t]; });
  for (tk_context c : contexts)
    tk_context_destroy(c);
  EXPECT_TRUE(failures.empty()) << failures.size() << " failures, first: " << failures.front();
}

// Errors are per thread: a failing call on one thread never shows its message
// in another thread's tk_last_error(), while the threads share a context.
TEST(ConcurrentCalls, LastErrorIsPerThread) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      tk_tensor empty{};
      empty.dtype = TK_BF16, empty.ndim = 2, empty.device = TK_DEVICE_CPU;
      for (int i = 0; i < 200; ++i) {
        // Odd threads pass no x, even threads no out.
        tk_status s = t % 2 ? tk_transpose(ctx, nullptr, nullptr, nullptr) : tk_transpose(ctx, &empty, nullptr, nullptr);
        std::string msg = tk_last_error();
        if (s != TK_ERROR_INVALID_ARGUMENT || msg.find(t % 2 ? ": x is null" : ": out is null") == std::string::npos)
          wrong.fetch_add(1);
      }
    });
  for (std::thread &th : threads)
    th.join();
  tk_context_destroy(ctx);
  EXPECT_EQ(wrong.load(), 0);
}

} // namespace
