// Arguments a hostile or careless caller passes: zero widths, sizes whose
// element counts overflow, sizes whose host scratch cannot be allocated,
// misaligned pointers, and calls that fail after part of their checks. Each
// returns a status with a message, never a crash, and writes no output. Host
// tensors: these run on the CPU path, without a GPU.
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

tk_tensor host(void *data, tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  tk_tensor t{};
  t.data = data, t.dtype = dtype, t.ndim = (int32_t)shape.size(), t.device = TK_DEVICE_CPU;
  for (size_t i = 0; i < shape.size(); ++i)
    t.shape[i] = shape[i];
  uint64_t s = 1; // wraps for the overflowing shapes these tests describe (never used then)
  for (int i = (int)shape.size() - 1; i >= 0; --i) {
    t.strides[i] = strides.empty() ? (int64_t)s : strides[i];
    s *= shape[i] ? (uint64_t)shape[i] : 1;
  }
  return t;
}

class Hostile : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS); }
  void TearDown() override { tk_context_destroy(ctx); }
  void expectError(tk_status got, tk_status want, const std::string &message) {
    EXPECT_EQ(got, want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(message), std::string::npos) << tk_last_error();
  }
  tk_context ctx = nullptr;
  alignas(16) unsigned char buf[4096] = {};
};

// A zero-width x with num_per_channels 0 took g == K (0 % 64 == 0) and then
// divided by zero (SIGFPE); a zero-width x with a real group has nothing to do.
TEST_F(Hostile, ZeroWidthPerTokenCast) {
  tk_tensor x = host(buf, TK_BF16, {4, 0}), out = host(buf, TK_F8_E4M3, {4, 0}), sf = host(buf, TK_F32, {4, 0});
  expectError(tk_per_token_cast(ctx, &x, nullptr, nullptr, TK_FORMAT_E4M3, 0, 0, &out, &sf, nullptr),
              TK_ERROR_INVALID_ARGUMENT, "num_per_channels must be 16, 32, 64, 128");
  EXPECT_EQ(tk_per_token_cast(ctx, &x, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, &out, &sf, nullptr), TK_SUCCESS)
      << tk_last_error();
  EXPECT_EQ(tk_per_token_cast_with_sf_only(ctx, &x, nullptr, nullptr, TK_FORMAT_E4M3, 32, 0, &sf, nullptr), TK_SUCCESS)
      << tk_last_error();
}

// H = 0 with num_per_channels 0 divided by zero; H = 0 with g = 128 is empty.
TEST_F(Hostile, ZeroWidthSwigluForward) {
  tk_tensor x = host(buf, TK_BF16, {4, 0}), out = host(buf, TK_F8_E4M3, {4, 0}), sf = host(buf, TK_F32, {4, 0});
  expectError(tk_swiglu_forward_and_per_token_cast(ctx, &x, TK_FORMAT_E4M3, 0, nullptr, nullptr, nullptr, 0, nullptr,
                                                   nullptr, nullptr, &out, &sf, nullptr),
              TK_ERROR_INVALID_ARGUMENT, "num_per_channels must be 128 or H = 0, got 0");
  EXPECT_EQ(tk_swiglu_forward_and_per_token_cast(ctx, &x, TK_FORMAT_E4M3, 128, nullptr, nullptr, nullptr, 0, nullptr,
                                                 nullptr, nullptr, &out, &sf, nullptr),
            TK_SUCCESS)
      << tk_last_error();
}

// cast_back of a zero-width x built a kernel with a tile width of 0 (SIGFPE).
TEST_F(Hostile, ZeroWidthCastBack) {
  tk_tensor x = host(buf, TK_F8_E4M3, {4, 0}), sf = host(buf, TK_F32, {4, 0}), out = host(buf, TK_BF16, {4, 0});
  const int32_t block[2] = {1, 128};
  EXPECT_EQ(tk_cast_back(ctx, &x, &sf, block, &out, nullptr), TK_SUCCESS) << tk_last_error();
}

// Block sizes far beyond the tensor: (2^31 - 1, 128) is refused; (1, 2^31 - 1)
// is one scale per row, as wide as the row (re-quantization built a kernel
// with a tile that wide, and failed with TK_ERROR_COMPILE).
TEST_F(Hostile, HugeBlockSizesAreRefusedOrOneScalePerRow) {
  const int32_t huge[2] = {1, 2147483647}, tall[2] = {2147483647, 128};
  // Each tensor its own bytes: an output sharing memory with another tensor is refused (CallTensors.h).
  alignas(16) static unsigned char xs[1024], sfs[32], outs[2048];
  tk_tensor x = host(xs, TK_F8_E4M3, {4, 256}), sf = host(sfs, TK_F32, {4, 1}), out = host(outs, TK_BF16, {4, 256});
  for (const int32_t *block : {huge, tall}) {
    const bool wide = block == huge; // one scale per row: valid
    auto expectRefusedUnlessWide = [&](tk_status s) {
      if (wide)
        EXPECT_EQ(s, TK_SUCCESS) << tk_last_error();
      else
        EXPECT_TRUE(s == TK_ERROR_INVALID_ARGUMENT || s == TK_ERROR_UNSUPPORTED) << s << ": " << tk_last_error();
    };
    expectRefusedUnlessWide(tk_cast_back(ctx, &x, &sf, block, &out, nullptr));
    tk_tensor bx = host(buf, TK_BF16, {4, 256}), bout = host(buf, TK_F8_E4M3, {4, 256});
    tk_tensor bsf = host(buf, TK_F32, {1, 1});
    tk_status s = tk_per_block_cast(ctx, &bx, TK_FORMAT_E4M3, block, 0, &bout, &bsf, nullptr);
    EXPECT_TRUE(s == TK_ERROR_INVALID_ARGUMENT || s == TK_ERROR_UNSUPPORTED) << s << ": " << tk_last_error();
    alignas(16) static unsigned char qouts[1024], qosfs[32];
    tk_tensor qx = host(xs, TK_F8_E4M3, {4, 256}), qsf = host(sfs, TK_F32, {4, 1}),
              qout = host(qouts, TK_F8_E4M3, {4, 256});
    tk_tensor qosf = host(qosfs, TK_F32, {4, 2});
    expectRefusedUnlessWide(tk_per_token_cast(ctx, &qx, &qsf, block, TK_FORMAT_E4M3, 128, 0, &qout, &qosf, nullptr));
  }
}

// Re-quantization of a zero-width x: the block width clamped to the row
// width (0) divided by zero (SIGFPE; found by capi_fuzzer).
TEST_F(Hostile, ZeroWidthRequantization) {
  const int32_t block[2] = {128, 128};
  tk_tensor x = host(buf, TK_F8_E4M3, {4, 0}), xsf = host(buf, TK_F32, {1, 0});
  tk_tensor out = host(buf, TK_F8_E4M3, {4, 0}), sf = host(buf, TK_F32, {4, 0});
  tk_status s = tk_per_token_cast(ctx, &x, &xsf, block, TK_FORMAT_E4M3, 128, 0, &out, &sf, nullptr);
  EXPECT_TRUE(s == TK_SUCCESS || s == TK_ERROR_INVALID_ARGUMENT) << s << ": " << tk_last_error();
}

// (2^43, 2^24) elements wrap an int64 count to 0: the NULL-data check passed
// and the kernel read through NULL (SIGSEGV).
TEST_F(Hostile, ElementCountsThatOverflowAreRefused) {
  tk_tensor x = host(nullptr, TK_BF16, {int64_t(1) << 43, int64_t(1) << 24});
  tk_tensor out = host(nullptr, TK_F8_E4M3, {int64_t(1) << 43, int64_t(1) << 24});
  tk_tensor sf = host(nullptr, TK_F32, {int64_t(1) << 43, int64_t(1) << 17});
  expectError(tk_per_token_cast(ctx, &x, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, &out, &sf, nullptr),
              TK_ERROR_INVALID_ARGUMENT, "x spans more elements or bytes than an int64 counts");
}

// An empty scores tensor (N = 0) with G epg past an int64 passed the checks (0 elements) and the entry point's
// G epg overflowed (UBSan; found by capi_fuzzer): an empty tensor's other sizes must multiply within an int64 too.
TEST_F(Hostile, EmptyTensorsWithOverflowingSizesAreRefused) {
  // Unit strides: the span check alone passes them (11 + 2^61 - 1 elements), so only the size product refuses them.
  tk_tensor scores = host(buf, TK_F32, {0, 12, int64_t(1) << 61}, {1, 1, 1}), idx = host(buf, TK_I64, {0, 4});
  expectError(tk_topk_sum_and_topk_group_idx(ctx, &scores, 2, 4, &idx, nullptr), TK_ERROR_INVALID_ARGUMENT,
              "scores spans more elements or bytes than an int64 counts");
  tk_tensor fine = host(buf, TK_F32, {0, 12, 6});
  EXPECT_EQ(tk_topk_sum_and_topk_group_idx(ctx, &fine, 2, 4, &idx, nullptr), TK_SUCCESS) << tk_last_error();
}

// A 2^32 x 2^32 transpose wrapped its element count to 0 and returned
// TK_SUCCESS having done nothing.
TEST_F(Hostile, HugeTransposeIsRefusedNotSkipped) {
  const int64_t n = int64_t(1) << 32;
  tk_tensor x = host(buf, TK_BF16, {n, n}), out = host(buf, TK_BF16, {n, n});
  expectError(tk_transpose(ctx, &x, &out, nullptr), TK_ERROR_INVALID_ARGUMENT, "spans more elements or bytes");
  tk_tensor bx = host(buf, TK_BF16, {1, n, n}), bout = host(buf, TK_BF16, {1, n, n});
  expectError(tk_batched_transpose(ctx, &bx, &bout, nullptr), TK_ERROR_INVALID_ARGUMENT,
              "spans more elements or bytes");
}

// A claimed size whose host scratch cannot be allocated threw std::bad_alloc
// through the C boundary (abort); it is an out-of-memory status, and nothing
// is written.
TEST_F(Hostile, ScratchThatCannotBeAllocatedIsOutOfMemory) {
  const int64_t n = int64_t(1) << 40, h = 7168, t = 8, k = 2;
  std::memset(buf, 0x5A, sizeof buf);
  // Shapes only: the call must fail before it reads or writes any element.
  tk_tensor x = host(buf, TK_F8_E4M3, {n, 2 * h}), xs = host(buf, TK_F32, {n, 2 * h / 128});
  tk_tensor go = host(buf, TK_BF16, {n, h}), w = host(buf, TK_F32, {t, k}), topk = host(buf, TK_I32, {n});
  tk_tensor ttp = host(buf, TK_I32, {t, k}), out = host(buf, TK_BF16, {n, h}), fp8 = host(buf, TK_F8_E4M3, {n, 2 * h});
  tk_tensor sf = host(buf, TK_F32, {n, 2 * h / 128}), grad = host(buf, TK_BF16, {n, 2 * h});
  tk_tensor wg = host(buf, TK_F32, {t, k});
  tk_status s = tk_swiglu_backward_and_per_token_cast(ctx, &x, &xs, &go, &w, &topk, &ttp, 128, 0, nullptr, &out, &fp8,
                                                      &sf, &grad, &wg, nullptr);
  EXPECT_EQ(s, TK_ERROR_OUT_OF_MEMORY) << tk_last_error();
  EXPECT_NE(std::string(tk_last_error()).find("tk_swiglu_backward_and_per_token_cast: out of host memory"),
            std::string::npos)
      << tk_last_error();
  for (unsigned char b : buf)
    ASSERT_EQ(b, 0x5A) << "a failed call wrote its outputs";
}

// Misaligned element pointers are refused by the common checks, before any
// kernel of the operator runs: the SwiGLU backward's second kernel's
// token_topk_to_pos was checked after the first kernel had written out,
// x_grad_fp8, x_grad_sf and x_grad.
TEST_F(Hostile, LateArgumentsFailBeforeAnyOutputIsWritten) {
  const int64_t n = 4, h = 128, t = 4, k = 1;
  std::vector<uint8_t> mem(1 << 16, 0x5A);
  uint8_t *p = mem.data();
  auto at = [&](size_t offset) { return p + offset; };
  tk_tensor x = host(at(0), TK_F8_E4M3, {n, 2 * h}), xs = host(at(1024), TK_F32, {n, 2});
  tk_tensor go = host(at(2048), TK_BF16, {n, h}), w = host(at(4096), TK_F32, {t, k});
  tk_tensor topk = host(at(4160), TK_I32, {n}), ttp = host(at(4194), TK_I32, {t, k}); // 4194: not 4-byte aligned
  tk_tensor out = host(at(8192), TK_BF16, {n, h}), fp8 = host(at(12288), TK_F8_E4M3, {n, 2 * h});
  tk_tensor sf = host(at(16384), TK_F32, {n, 2}), grad = host(at(20480), TK_BF16, {n, 2 * h});
  tk_tensor wg = host(at(28672), TK_F32, {t, k});
  std::memset(at(0), 0, 4096); // finite x, x_sf, grad_out
  std::memset(at(4160), 0, 16);
  const std::vector<uint8_t> before(mem.begin() + 8192, mem.end());
  expectError(tk_swiglu_backward_and_per_token_cast(ctx, &x, &xs, &go, &w, &topk, &ttp, 128, 0, nullptr, &out, &fp8,
                                                    &sf, &grad, &wg, nullptr),
              TK_ERROR_INVALID_ARGUMENT, "token_topk_to_pos data pointer is not aligned to its 4-byte i32 elements");
  EXPECT_TRUE(std::equal(before.begin(), before.end(), mem.begin() + 8192)) << "a failed call wrote its outputs";
  // A weight_grad on another device than the first kernel's tensors.
  ttp = host(at(4224), TK_I32, {t, k});
  wg.device = TK_DEVICE_CUDA;
  EXPECT_EQ(tk_swiglu_backward_and_per_token_cast(ctx, &x, &xs, &go, &w, &topk, &ttp, 128, 0, nullptr, &out, &fp8, &sf,
                                                  &grad, &wg, nullptr),
            TK_ERROR_INVALID_ARGUMENT)
      << tk_last_error();
  EXPECT_TRUE(std::equal(before.begin(), before.end(), mem.begin() + 8192)) << "a failed call wrote its outputs";
}

// sf_clamp_min = 1e-45 gave an all-zero row the scale 0 and NaN codes with
// TK_SUCCESS; H = 0 in the SwiGLU backward came back as TK_ERROR_COMPILE.
TEST_F(Hostile, DegenerateOptionsAreArgumentErrors) {
  tk_tensor x = host(buf, TK_BF16, {4, 256}), out = host(buf, TK_F8_E4M3, {4, 128}), sf = host(buf, TK_F32, {4, 1});
  const float tiny = 1e-45f;
  expectError(tk_swiglu_forward_and_per_token_cast(ctx, &x, TK_FORMAT_E4M3, 128, nullptr, nullptr, nullptr, 0,
                                                   nullptr, nullptr, &tiny, &out, &sf, nullptr),
              TK_ERROR_INVALID_ARGUMENT, "sf_clamp_min must be at least 448 * 2^-126");
  tk_tensor bx = host(buf, TK_F8_E4M3, {4, 0}), xs = host(buf, TK_F32, {4, 0}), go = host(buf, TK_BF16, {4, 0});
  tk_tensor w = host(buf, TK_F32, {2, 2}), topk = host(buf, TK_I32, {4}), ttp = host(buf, TK_I32, {2, 2});
  tk_tensor bout = host(buf, TK_BF16, {4, 0}), fp8 = host(buf, TK_F8_E4M3, {4, 0}), bsf = host(buf, TK_F32, {4, 0});
  tk_tensor grad = host(buf, TK_BF16, {4, 0}), wg = host(buf, TK_F32, {2, 2});
  expectError(tk_swiglu_backward_and_per_token_cast(ctx, &bx, &xs, &go, &w, &topk, &ttp, 128, 0, nullptr, &bout, &fp8,
                                                    &bsf, &grad, &wg, nullptr),
              TK_ERROR_INVALID_ARGUMENT, "x has 2H columns with H > 0, got 0");
}

TEST(StatusStrings, OutOfMemoryHasItsName) { EXPECT_STREQ(tk_status_string(TK_ERROR_OUT_OF_MEMORY), "out of memory"); }

} // namespace
