// Fragments through shared memory past the 48 KB a kernel may declare
// statically (tile-dynamic-shared-memory): exact on the CPU path, PTX with
// dynamic shared memory for every target (tests/ptxas_check.sh assembles a
// shipped kernel in dynamic shared memory for each), a clear error past the
// target's limit, and the runtime's check against a device's limit.
#include "tests/kernels/shared_exchange_kernel.h"
#include "tk/runtime/JitCache.h"
#include "tk/tk.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

namespace {

using tk::test_kernels::SharedExchangeConfig;

tk::runtime::Status compileFor(const std::string &target, const SharedExchangeConfig &c,
                               tk::runtime::CompiledKernel &out) {
  return tk::runtime::compileKernel(tk::runtime::factoryOf(tk::test_kernels::buildSharedExchange, c),
                                    *tk::compiler::findTarget(target), out);
}

TEST(SharedExchange, ExactOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (int64_t m : {128, 384, 0}) {
    std::string error;
    EXPECT_EQ(tk::test_kernels::checkSharedExchange(ctx, tk::checks::Placement{}, m, error), 0)
        << m << " rows: " << error;
  }
  std::string error;
  EXPECT_EQ(tk::test_kernels::checkSharedExchange(ctx, tk::checks::Placement{}, 256, error, {64}), 0) << error;
  tk_context_destroy(ctx);
}

// 128 KB of f32 and 4 KB of bf16 (at offset 131072): 135168 bytes, past the
// static 48 KB, within every target's limit.
TEST(SharedExchange, DynamicSharedMemoryOnEveryTarget) {
  for (const tk::compiler::Target &t : tk::compiler::supportedTargets()) {
    tk::runtime::CompiledKernel k;
    tk::runtime::Status s = compileFor(t.name, {}, k);
    ASSERT_TRUE(s.isOk()) << t.name << ": " << s.message();
    EXPECT_EQ(tk::compiler::dynamicSharedBytes(k.ptx, "shared_exchange"), 135168) << t.name;
    EXPECT_EQ(k.ptx.rfind("// tk.dynamic_shared_memory shared_exchange 135168\n", 0), 0u) << k.ptx.substr(0, 200);
    EXPECT_NE(k.ptx.find(".extern .shared .align 16 .b8 __tk_dynamic_shared[];"), std::string::npos) << t.name;
    EXPECT_EQ(k.ptx.find("__wg_shared_exchange"), std::string::npos) << t.name << ": a static buffer is left";
    EXPECT_EQ(tk::compiler::dynamicSharedBytes(k.ptx, "other_kernel"), 0);
  }
}

// 96 more rows of f32 (96 KB): 233472 bytes, more than any target allows.
TEST(SharedExchange, PastTheTargetsLimitIsAnError) {
  for (const tk::compiler::Target &t : tk::compiler::supportedTargets()) {
    tk::runtime::CompiledKernel k;
    tk::runtime::Status s = compileFor(t.name, {96}, k);
    ASSERT_FALSE(s.isOk()) << t.name;
    EXPECT_EQ(s.code(), TK_ERROR_COMPILE);
    std::string want = "kernel 'shared_exchange' needs 233472 bytes of shared memory per block; " + t.name +
                       " allows at most " + std::to_string(t.maxSharedBytes);
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
    // Each buffer is named with the line of the kernel that made it.
    EXPECT_NE(s.message().find("shared_exchange_kernel.h"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("a buffer of f32 [96, 256] here"), std::string::npos) << s.message();
  }
  // sm_80 allows 163 KB: 64 more rows (64 KB, 200704 bytes) fit sm_90a but not sm_80.
  tk::runtime::CompiledKernel k;
  EXPECT_TRUE(compileFor("sm_90a", {64}, k).isOk());
  EXPECT_FALSE(compileFor("sm_80", {64}, k).isOk());
}

TEST(SharedExchange, RuntimeChecksTheDevicesLimit) {
  EXPECT_TRUE(tk::runtime::checkSharedMemory("k", 232448, 232448, "NVIDIA H200").isOk());
  tk::runtime::Status s = tk::runtime::checkSharedMemory("k", 135168, 101376, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(s.code(), TK_ERROR_UNSUPPORTED);
  EXPECT_EQ(s.message(), "k needs 135168 bytes of shared memory per block; NVIDIA GeForce RTX 3090 allows at most 101376");
}

} // namespace
