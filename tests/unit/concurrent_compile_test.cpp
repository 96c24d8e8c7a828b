// Kernels compiled side by side (tk_context_s::prepare's threads): JitCache
// compiles outside its lock, each build in an MLIR context of its own, and
// gives every thread the PTX a lone compile gives; a kernel asked for by
// several threads at once compiles once. No device needed: the cache
// compiles to PTX without a driver.
#include "tests/kernels/affine_kernel.h"
#include "tk/runtime/Context.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>

using namespace tk;
using tk::test::AffineConfig;
using tk::test::buildAffine;

namespace {

const compiler::Target &sm90() {
  static const compiler::Target t = *compiler::findTarget("sm_90a");
  return t;
}

/// Runs `work(i)` on `n` threads at once.
void onThreads(int n, const std::function<void(int)> &work) {
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back(work, i);
  for (std::thread &t : threads)
    t.join();
}

TEST(ConcurrentCompile, ThreadsGetTheKernelsALoneCompileGives) {
  char dir[] = "/tmp/tk-concurrent-XXXXXX"; // a fresh disk cache: every kernel compiled here
  ASSERT_NE(mkdtemp(dir), nullptr);
  const char *before = std::getenv("TK_CACHE_DIR");
  const std::string saved = before ? before : "";
  setenv("TK_CACHE_DIR", dir, 1);
  runtime::JitCache cache(/*useIndex=*/false);
  before ? (void)setenv("TK_CACHE_DIR", saved.c_str(), 1) : (void)unsetenv("TK_CACHE_DIR");
  constexpr int kThreads = 6;
  std::vector<std::shared_ptr<runtime::CompiledKernel>> got(kThreads);
  std::vector<runtime::Status> status(kThreads, runtime::Status::ok());
  onThreads(kThreads, [&](int i) {
    status[i] = cache.get(runtime::factoryOf(buildAffine, AffineConfig{3.0 + i}), sm90(), nullptr, got[i]);
  });
  for (int i = 0; i < kThreads; ++i) {
    ASSERT_TRUE(status[i].isOk()) << status[i].message();
    runtime::CompiledKernel alone;
    ASSERT_TRUE(runtime::compileKernel(runtime::factoryOf(buildAffine, AffineConfig{3.0 + i}), sm90(), alone).isOk());
    EXPECT_EQ(got[i]->ptx, alone.ptx) << "factor " << 3.0 + i;
    EXPECT_EQ(got[i]->contentKey, alone.contentKey);
  }
  EXPECT_EQ(cache.misses(), size_t(kThreads));
  EXPECT_EQ(cache.diskHits(), 0u);
  EXPECT_EQ(cache.size(), size_t(kThreads));
  std::system((std::string("rm -rf ") + dir).c_str());
}

TEST(ConcurrentCompile, OneKernelAskedForAtOnceCompilesOnce) {
  runtime::JitCache cache(/*useIndex=*/false);
  constexpr int kThreads = 8;
  std::vector<std::shared_ptr<runtime::CompiledKernel>> got(kThreads);
  onThreads(kThreads, [&](int i) {
    EXPECT_TRUE(cache.get(runtime::factoryOf(buildAffine, AffineConfig{7.0}), sm90(), nullptr, got[i]).isOk());
  });
  for (int i = 1; i < kThreads; ++i)
    EXPECT_EQ(got[i].get(), got[0].get());
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_EQ(cache.hits(), size_t(kThreads - 1));
  // Two names of one IR (another tag), asked for at once: one kernel kept, which both get.
  std::shared_ptr<runtime::CompiledKernel> a, b;
  onThreads(2, [&](int i) {
    EXPECT_TRUE(
        cache.get(runtime::factoryOf(buildAffine, AffineConfig{11.0, i ? "b" : "a"}), sm90(), nullptr, i ? b : a)
            .isOk());
  });
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(cache.size(), 2u);
}

/// Builds of `kParties` kernels that each wait, inside the DSL program, until all of them are building: they
/// finish only if the cache runs them at once (one lock around the builds would time them out).
constexpr int kParties = 3;
std::mutex partyMutex;
std::condition_variable partyArrived;
int partyCount = 0;

dsl::BuiltKernel buildWhenAllBuild(mlir::MLIRContext &ctx, const AffineConfig &c) {
  std::unique_lock<std::mutex> lock(partyMutex);
  ++partyCount;
  partyArrived.notify_all();
  if (!partyArrived.wait_for(lock, std::chrono::seconds(20), [] { return partyCount >= kParties; }))
    throw std::runtime_error("the other builds never started: builds ran one at a time");
  lock.unlock();
  return buildAffine(ctx, c);
}

TEST(ConcurrentCompile, BuildsOverlap) {
  runtime::JitCache cache(/*useIndex=*/false);
  std::vector<runtime::Status> status(kParties, runtime::Status::ok());
  onThreads(kParties, [&](int i) {
    std::shared_ptr<runtime::CompiledKernel> kernel;
    status[i] = cache.get(runtime::factoryOf(buildWhenAllBuild, AffineConfig{20.0 + i}), sm90(), nullptr, kernel);
  });
  for (const runtime::Status &s : status)
    EXPECT_TRUE(s.isOk()) << s.message();
}

/// A program that throws what is not a std::exception (which the build does not turn into a status).
dsl::BuiltKernel buildThatThrows(mlir::MLIRContext &, const AffineConfig &) { throw 42; }

TEST(ConcurrentCompile, AKernelThatThrowsLeavesNoWaiterBehind) {
  runtime::JitCache cache(/*useIndex=*/false);
  for (int attempt = 0; attempt < 2; ++attempt) { // the second would wait forever on a kernel left in flight
    std::atomic<bool> done{false};
    std::thread asker([&] {
      std::shared_ptr<runtime::CompiledKernel> kernel;
      EXPECT_THROW((void)cache.get(runtime::factoryOf(buildThatThrows, AffineConfig{}), sm90(), nullptr, kernel), int);
      done = true;
    });
    for (int i = 0; i < 200 && !done; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!done) {
      asker.detach();
      FAIL() << "attempt " << attempt << " still waits";
    }
    asker.join();
  }
}

TEST(ConcurrentCompile, PrepareCompilesNothingOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::vector<float> x(4 * 64, 1.0f), out(4 * 64, 0.0f);
  tk_tensor tx{}, tout{};
  for (auto [t, data] : {std::pair{&tx, x.data()}, std::pair{&tout, out.data()}}) {
    t->data = data, t->dtype = TK_F32, t->ndim = 2, t->device = TK_DEVICE_CPU;
    t->shape[0] = 4, t->shape[1] = 64, t->strides[0] = 64, t->strides[1] = 1;
  }
  ctx->prepare({runtime::factoryOf(buildAffine, AffineConfig{2.5}), runtime::factoryOf(buildAffine, AffineConfig{4.5})},
               {&tx, &tout});
  EXPECT_EQ(ctx->cache.size(), 0u);
  EXPECT_EQ(ctx->cpuCache.size(), 0u);
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

} // namespace
