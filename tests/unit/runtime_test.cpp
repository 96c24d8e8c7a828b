// The runtime without a GPU: driver loading errors, the JIT cache, binding.
#include "kernels/common/validate.h"
#include "kernels/quant/per_channel_cast.h"
#include "kernels/quant/per_token_cast.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Device.h"
#include "tk/runtime/Launcher.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

using namespace tk;

namespace {

runtime::KernelFactory factory(const kernels::quant::PerTokenCastConfig &c) {
  return runtime::factoryOf(kernels::quant::buildPerTokenCast, c);
}

tk_tensor tensor(void *data, tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  tk_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.ndim = (int)shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    t.shape[i] = shape[i];
    t.strides[i] = strides[i];
  }
  return t;
}

/// An address for tests that bind tensors without reading them: 1 TiB apart
/// per `i`, never dereferenced.
void *farAddress(int i) { return reinterpret_cast<void *>((uintptr_t)(i + 1) << 40); }

TEST(Runtime, ContextNeedsNoGpuAndLaunchSaysWhyNot) {
  std::string why;
  if (runtime::cudaDeviceAvailable(why))
    GTEST_SKIP() << "a CUDA device is present; this test covers machines without one";
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  alignas(16) static char buf[1 << 16];
  tk_tensor x = tensor(buf, TK_BF16, {4, 256}, {256, 1});
  tk_tensor out = tensor(buf, TK_F8_E4M3, {4, 256}, {256, 1});
  tk_tensor sf = tensor(buf, TK_F32, {4, 2}, {2, 1});
  tk_status s = tk_per_token_cast(ctx, &x, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, &out, &sf, nullptr);
  EXPECT_TRUE(s == TK_ERROR_NO_DRIVER || s == TK_ERROR_NO_DEVICE) << tk_status_string(s);
  EXPECT_NE(std::string(tk_last_error()).find("CUDA"), std::string::npos) << tk_last_error();
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

// In memory, a kernel is named by its DSL program, its config and the
// target (and ablations, CompileOptions::cacheTag): never by a string alone.
TEST(Runtime, MemoryKeysSeparateProgramsConfigsAndTargets) {
  auto sm90 = *compiler::findTarget("sm_90a"), sm80 = *compiler::findTarget("sm_80");
  kernels::quant::PerTokenCastConfig c{7168, 128, dsl::DType::BF16, false}, d = c;
  d.hidden = 4096;
  std::string a = runtime::JitCache::memoryKey(factory(c), sm90);
  EXPECT_NE(a, runtime::JitCache::memoryKey(factory(c), sm80));
  EXPECT_NE(a, runtime::JitCache::memoryKey(factory(d), sm90));
  // Another program with a config that prints alike is another kernel.
  runtime::KernelFactory other(reinterpret_cast<const void *>(&kernels::quant::buildPerChannelCast), c.key(), {});
  EXPECT_NE(a, runtime::JitCache::memoryKey(other, sm90));
}

TEST(Runtime, CacheCompilesOncePerKernel) {
  runtime::JitCache cache;
  auto target = *compiler::findTarget("sm_90a");
  kernels::quant::PerTokenCastConfig c{2048, 128, dsl::DType::BF16, false};
  std::shared_ptr<runtime::CompiledKernel> k1, k2, k3;
  ASSERT_TRUE(cache.get(factory(c), target, nullptr, k1).isOk());
  ASSERT_TRUE(cache.get(factory(c), target, nullptr, k2).isOk());
  EXPECT_EQ(k1.get(), k2.get());
  EXPECT_EQ(cache.hits(), 1u);
  c.group = 64;
  ASSERT_TRUE(cache.get(factory(c), target, nullptr, k3).isOk());
  EXPECT_NE(k1.get(), k3.get());
  EXPECT_NE(k1->contentKey, k3->contentKey);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(Runtime, CompileErrorsCarryDiagnostics) {
  runtime::CompiledKernel out;
  runtime::Status s = runtime::compileKernel(
      [](mlir::MLIRContext &ctx) -> dsl::BuiltKernel { throw std::invalid_argument("bad config"); },
      *compiler::findTarget("sm_90a"), out);
  EXPECT_EQ(s.code(), TK_ERROR_COMPILE);
  EXPECT_NE(s.message().find("bad config"), std::string::npos);
}

TEST(AccessAlignment, UnitInnermostStrideDoesNotLimitVectorWidth) {
  alignas(256) static char buf[256];
  auto alignmentOf = [](tk_tensor t, int64_t elementBytes) { return kernels::alignmentOf(&t, elementBytes); };
  // contiguous bf16 rows of 7168: pointer and row stride (14336 B) allow 16 bytes
  EXPECT_EQ(alignmentOf(tensor(buf, TK_BF16, {8, 7168}, {7168, 1}), 2), 16);
  // the pointer or a row stride decides when they are narrower
  EXPECT_EQ(alignmentOf(tensor(buf + 2, TK_BF16, {8, 7168}, {7168, 1}), 2), 2);
  EXPECT_EQ(alignmentOf(tensor(buf, TK_BF16, {8, 7168}, {7172, 1}), 2), 8);
  // a non-unit innermost stride counts; a single row's stride does not
  EXPECT_EQ(alignmentOf(tensor(buf, TK_F32, {8, 64}, {64, 2}), 4), 8);
  EXPECT_EQ(alignmentOf(tensor(buf, TK_F8_E4M3, {1, 64}, {3, 1}), 1), 16);
  // a batch of matrices: every outer stride counts
  EXPECT_EQ(alignmentOf(tensor(buf, TK_F8_E4M3, {2, 64, 64}, {64 * 68, 68, 1}), 1), 4);
}

// A plain contiguous call must pick the 16-byte variant of the kernel: the
// alignment is part of the kernel's key (H200 runs once took the 2-byte variant
// for every call until this was caught: 245 us instead of 184 us at 32768x7168).
TEST(AccessAlignment, ContiguousCallsCompileTheWideVariant) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::vector<uint16_t> x(4 * 256, 0x3F80);
  std::vector<uint8_t> out(4 * 256);
  std::vector<float> sf(4 * 2);
  tk_tensor tx = tensor(x.data(), TK_BF16, {4, 256}, {256, 1}), tout = tensor(out.data(), TK_F8_E4M3, {4, 256}, {256, 1}),
            tsf = tensor(sf.data(), TK_F32, {4, 2}, {2, 1});
  tx.device = tout.device = tsf.device = TK_DEVICE_CPU;
  ASSERT_EQ(uintptr_t(x.data()) % 16, 0u);
  ASSERT_EQ(tk_per_token_cast(ctx, &tx, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, &tout, &tsf, nullptr), TK_SUCCESS)
      << tk_last_error();
  auto keys = ctx->cpuCache.configs();
  ASSERT_EQ(keys.size(), 1u);
  // Contiguous rows: the row stride is compiled in (",xcontig").
  EXPECT_NE(keys[0].find("xalign=16,xcontig,outalign=16"), std::string::npos) << keys[0];
  // Rows 512 elements apart: a second kernel, with the stride an argument.
  std::vector<uint16_t> wide(4 * 512, 0x3F80);
  tk_tensor strided = tensor(wide.data(), TK_BF16, {4, 256}, {512, 1});
  strided.device = TK_DEVICE_CPU;
  ASSERT_EQ(tk_per_token_cast(ctx, &strided, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, &tout, &tsf, nullptr),
            TK_SUCCESS)
      << tk_last_error();
  keys = ctx->cpuCache.configs();
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_NE(keys[0].find("xcontig") == std::string::npos, keys[1].find("xcontig") == std::string::npos);
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

TEST(Launcher, BindsSizesAndChecksTensors) {
  runtime::CompiledKernel k;
  ASSERT_TRUE(runtime::compileKernel(factory({2048, 128, dsl::DType::BF16, false}), *compiler::findTarget("sm_90a"), k)
                  .isOk());
  // Binding reads no element: each tensor gets addresses of its own, far apart (outputs must not overlap others).
  tk_tensor x = tensor(farAddress(0), TK_BF16, {100, 2048}, {2048, 1});
  tk_tensor out = tensor(farAddress(1), TK_F8_E4M3, {100, 2048}, {2048, 1});
  tk_tensor sf = tensor(farAddress(2), TK_F32, {100, 16}, {16, 1});
  std::map<std::string, int64_t> symbols;
  ASSERT_TRUE(runtime::bindTensors(k.signature, {&x, &out, &sf}, symbols).isOk());
  EXPECT_EQ(symbols["num_tokens"], 100);
  out.shape[0] = 99; // inconsistent token count
  symbols.clear();
  runtime::Status s = runtime::bindTensors(k.signature, {&x, &out, &sf}, symbols);
  EXPECT_EQ(s.code(), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("num_tokens is 100"), std::string::npos) << s.message();
  out.shape[0] = 100;
  x.data = static_cast<char *>(farAddress(0)) + 2; // breaks the 16-byte alignment the kernel was built for
  symbols.clear();
  s = runtime::bindTensors(k.signature, {&x, &out, &sf}, symbols);
  EXPECT_NE(s.message().find("16-byte aligned"), std::string::npos) << s.message();
  // GPU kernels take their tensors as not aliased (tile-noalias-params): an output on another tensor is refused.
  x.data = farAddress(0);
  sf.data = static_cast<char *>(farAddress(0)) + 4096;
  symbols.clear();
  s = runtime::bindTensors(k.signature, {&x, &out, &sf}, symbols);
  EXPECT_EQ(s.code(), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("output out_sf"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("overlaps input x"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("a kernel's output must not share memory"), std::string::npos) << s.message();
}

// A size promised to be a multiple (KernelBuilder::dynamic(name, m)): the
// transposed per-channel cast stores 16-byte chunks along its dynamic token
// dimension, so the launcher refuses token counts that are not multiples of b.
// Sizes that are expressions of others must match them.
TEST(Launcher, ChecksPromisedMultiples) {
  kernels::quant::PerChannelCastConfig c{256, 32, dsl::DType::BF16, false, true};
  runtime::CompiledKernel k;
  ASSERT_TRUE(runtime::compileKernel([c](mlir::MLIRContext &ctx) { return kernels::quant::buildPerChannelCast(ctx, c); },
                                     *compiler::findTarget("sm_90a"), k)
                  .isOk());
  EXPECT_EQ(k.signature.symbolMultiples.at("num_tokens"), 32);
  tk_tensor x = tensor(farAddress(0), TK_BF16, {64, 256}, {256, 1});
  tk_tensor out = tensor(farAddress(1), TK_F8_E4M3, {256, 64}, {64, 1});
  tk_tensor sf = tensor(farAddress(2), TK_F32, {2, 256}, {256, 1});
  std::map<std::string, int64_t> symbols;
  ASSERT_TRUE(runtime::bindTensors(k.signature, {&x, &out, &sf}, symbols).isOk());
  x.shape[0] = 48, out.shape[1] = 48, out.strides[0] = 48;
  symbols.clear();
  runtime::Status s = runtime::bindTensors(k.signature, {&x, &out, &sf}, symbols);
  EXPECT_EQ(s.code(), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("num_tokens is 48, which the kernel needs to be a multiple of 32"), std::string::npos)
      << s.message();
  // Sizes computed from others are checked too: out_sf has ceil_div(M, b) rows.
  x.shape[0] = 64, out.shape[1] = 64, out.strides[0] = 64, sf.shape[0] = 3;
  symbols.clear();
  s = runtime::bindTensors(k.signature, {&x, &out, &sf}, symbols);
  EXPECT_EQ(s.code(), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("tensor 'out_sf' dimension 0 must be ceil_div(num_tokens, 32) = 2, got 3"),
            std::string::npos)
      << s.message();
  // The promise reaches the PTX: 16-byte stores of the transposed e4m3 data.
  EXPECT_NE(k.ptx.find("st.global.v4.b32"), std::string::npos);
  EXPECT_EQ(k.ptx.find("st.global.b8"), std::string::npos);
}

TEST(KernelBuilder, RejectsConflictingMultiples) {
  mlir::MLIRContext ctx;
  dsl::KernelBuilder k(ctx, "k", 32);
  k.dynamic("n", 16);
  EXPECT_THROW(k.dynamic("n", 8), std::invalid_argument);
  EXPECT_THROW(k.dynamic("m", 0), std::invalid_argument);
}

} // namespace
