// The operators reject bad input with a status and a message, before
// touching any device (these run without a GPU).
#include "checks/gpu_session.h"
#include "tk/tk.h"

#include <functional>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

alignas(16) char fake[16];

tk_tensor tensor(tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  return tk::checks::deviceTensor(fake, dtype, std::move(shape), std::move(strides));
}

struct Call {
  tk_context ctx;
  tk_tensor x = tensor(TK_BF16, {64, 7168});
  tk_tensor out = tensor(TK_F8_E4M3, {64, 7168});
  tk_tensor sf = tensor(TK_F32, {64, 56});
  tk_format fmt = TK_FORMAT_E4M3;
  int32_t group = 128;
  uint32_t flags = TK_ROUND_SF;
  tk_status run() { return tk_per_token_cast(ctx, &x, nullptr, nullptr, fmt, group, flags, &out, &sf, nullptr); }
};

class Validation : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS); }
  void TearDown() override { tk_context_destroy(ctx); }
  void expectRejected(const std::function<void(Call &)> &mutate, tk_status status, const std::string &message) {
    Call c{ctx};
    mutate(c);
    EXPECT_EQ(c.run(), status) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(message), std::string::npos)
        << "message was: " << tk_last_error();
  }
  tk_context ctx = nullptr;
};

TEST_F(Validation, NullPointers) {
  EXPECT_EQ(tk_per_token_cast(nullptr, nullptr, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, nullptr, nullptr, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("ctx is null"), std::string::npos);
  Call c{ctx};
  EXPECT_EQ(tk_per_token_cast(ctx, nullptr, nullptr, nullptr, c.fmt, 128, 0, &c.out, &c.sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("x is null"), std::string::npos);
  expectRejected([](Call &c) { c.x.data = nullptr; }, TK_ERROR_INVALID_ARGUMENT, "x has a null data pointer");
  expectRejected([](Call &c) { c.sf.data = nullptr; }, TK_ERROR_INVALID_ARGUMENT, "out_sf has a null data pointer");
  EXPECT_EQ(tk_context_create(nullptr), TK_ERROR_INVALID_ARGUMENT);
}

// tk_set_num_sms (the spec's set_num_sms): 0 or positive; checked against
// the device at launch when none is bound yet (here: none).
TEST_F(Validation, NumSms) {
  int32_t n = -1;
  EXPECT_EQ(tk_get_num_sms(ctx, &n), TK_SUCCESS);
  EXPECT_EQ(n, 0); // no override, no device bound
  EXPECT_EQ(tk_set_num_sms(ctx, -3), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("num_sms must be 0 (the device's count) or positive, got -3"),
            std::string::npos)
      << tk_last_error();
  EXPECT_EQ(tk_set_num_sms(nullptr, 4), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tk_get_num_sms(ctx, nullptr), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("num_sms is null"), std::string::npos);
  EXPECT_EQ(tk_set_num_sms(ctx, 112), TK_SUCCESS);
  EXPECT_EQ(tk_get_num_sms(ctx, &n), TK_SUCCESS);
  EXPECT_EQ(n, 112);
  EXPECT_EQ(tk_set_num_sms(ctx, 0), TK_SUCCESS);
  EXPECT_EQ(tk_get_num_sms(ctx, &n), TK_SUCCESS);
  EXPECT_EQ(n, 0);
}

TEST_F(Validation, DtypesAndShapes) {
  expectRejected([](Call &c) { c.x.dtype = TK_I32; }, TK_ERROR_INVALID_ARGUMENT, "x must be bf16 or f32, got i32");
  expectRejected([](Call &c) { c.out.dtype = TK_BF16; }, TK_ERROR_INVALID_ARGUMENT, "out must be e4m3, got bf16");
  expectRejected([](Call &c) { c.sf.dtype = TK_BF16; }, TK_ERROR_INVALID_ARGUMENT, "out_sf must be f32");
  expectRejected([](Call &c) { c.x.ndim = 3; }, TK_ERROR_INVALID_ARGUMENT, "x must have 2 dimensions, got 3");
  expectRejected([](Call &c) { c.out = tensor(TK_F8_E4M3, {64, 7040}); }, TK_ERROR_INVALID_ARGUMENT,
                 "out has shape (64, 7040); the contract is (M, Kout) with Kout = 7168 (K)");
  expectRejected([](Call &c) { c.sf = tensor(TK_F32, {64, 57}); }, TK_ERROR_INVALID_ARGUMENT,
                 "out_sf must have shape (64, 56), got (64, 57)");
  expectRejected([](Call &c) { c.x.shape[0] = -1; }, TK_ERROR_INVALID_ARGUMENT, "negative size");
}

TEST_F(Validation, GroupSizes) {
  expectRejected([](Call &c) { c.group = 96; }, TK_ERROR_INVALID_ARGUMENT, "num_per_channels must be 16, 32, 64, 128");
  // g == K needs K % 64 == 0 (hidden 7200 is not).
  expectRejected(
      [](Call &c) {
        c.x = tensor(TK_BF16, {64, 7200});
        c.out = tensor(TK_F8_E4M3, {64, 7200});
        c.sf = tensor(TK_F32, {64, 1});
        c.group = 7200;
      },
      TK_ERROR_INVALID_ARGUMENT, "got 7200 for hidden size 7200");
}

TEST_F(Validation, Strides) {
  expectRejected([](Call &c) { c.x.strides[1] = 2; }, TK_ERROR_INVALID_ARGUMENT, "x needs a unit innermost stride, got 2");
  expectRejected([](Call &c) { c.x.strides[0] = 100; }, TK_ERROR_INVALID_ARGUMENT,
                 "row stride 100 is smaller than the row width 7168");
  expectRejected([](Call &c) { c.sf.strides[0] = 1; }, TK_ERROR_INVALID_ARGUMENT,
                 "out_sf must have strides (56, 1) (row-major)");
  expectRejected(
      [](Call &c) {
        c.flags = TK_ROUND_SF | TK_SF_COL_MAJOR;
        c.sf = tensor(TK_F32, {64, 56}, {1, 63});
      },
      TK_ERROR_INVALID_ARGUMENT, "out_sf must have strides (1, 64) (TMA-aligned column-major)");
}

TEST_F(Validation, FlagsAndFormats) {
  expectRejected([](Call &c) { c.flags = TK_PACKED_UE8M0; }, TK_ERROR_INVALID_ARGUMENT,
                 "TK_PACKED_UE8M0 needs TK_SF_COL_MAJOR and TK_ROUND_SF");
  expectRejected([](Call &c) { c.flags = 1u << 7; }, TK_ERROR_INVALID_ARGUMENT, "unknown flag bits");
  expectRejected([](Call &c) { c.fmt = (tk_format)9; }, TK_ERROR_INVALID_ARGUMENT, "fmt must be");
  // e5m6: one group per row, out u8 (M, 3 K / 2).
  expectRejected([](Call &c) { c.fmt = TK_FORMAT_E5M6; }, TK_ERROR_INVALID_ARGUMENT,
                 "e5m6 output needs one group per row (num_per_channels == K) and K % 8 == 0, got g = 128");
  expectRejected(
      [](Call &c) {
        c.fmt = TK_FORMAT_E5M6;
        c.group = 7168;
        c.sf = tensor(TK_F32, {64, 1});
      },
      TK_ERROR_INVALID_ARGUMENT, "out must be u8, got e4m3");
  // e2m1: out holds two codes per byte, as i8 (M, K / 2).
  expectRejected([](Call &c) { c.fmt = TK_FORMAT_E2M1; }, TK_ERROR_INVALID_ARGUMENT, "out must be i8, got e4m3");
  expectRejected(
      [](Call &c) {
        c.fmt = TK_FORMAT_E2M1;
        c.out = tensor(TK_I8, {64, 7168});
      },
      TK_ERROR_INVALID_ARGUMENT, "out has shape (64, 7168); the contract is (M, Kout) with Kout = 3584 (K / 2: two e2m1 codes per byte)");
  expectRejected([](Call &c) { c.x.device = (tk_device_type)7; }, TK_ERROR_INVALID_ARGUMENT, "unknown device type");
}

TEST_F(Validation, SfOnlyAndPrecomputedSf) {
  Call c{ctx};
  // sf_only: g == K is not allowed, quantized input is not allowed.
  tk_tensor x = tensor(TK_BF16, {64, 7168}), sfK = tensor(TK_F32, {64, 1});
  EXPECT_EQ(tk_per_token_cast_with_sf_only(ctx, &x, nullptr, nullptr, TK_FORMAT_E4M3, 7168, 0, &sfK, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("num_per_channels must be 16, 32, 64, 128; got 7168"), std::string::npos)
      << tk_last_error();
  int32_t block[2] = {128, 128};
  EXPECT_EQ(tk_per_token_cast_with_sf_only(ctx, &x, &sfK, block, TK_FORMAT_E4M3, 128, 0, &c.sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("plain (not quantized) input"), std::string::npos);
  // precomputed: column-major or packed scale factors, wrong dtype, shape and strides.
  tk_tensor sf = tensor(TK_F32, {64, 56});
  EXPECT_EQ(tk_per_token_cast_with_precomputed_sf(ctx, &x, TK_FORMAT_E4M3, 128, &sf, TK_SF_COL_MAJOR, &c.out, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("sf must be row-major fp32"), std::string::npos);
  tk_tensor sfBf16 = tensor(TK_BF16, {64, 56});
  EXPECT_EQ(tk_per_token_cast_with_precomputed_sf(ctx, &x, TK_FORMAT_E4M3, 128, &sfBf16, 0, &c.out, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("sf must be f32, got bf16"), std::string::npos) << tk_last_error();
  tk_tensor sfShape = tensor(TK_F32, {64, 57});
  EXPECT_EQ(tk_per_token_cast_with_precomputed_sf(ctx, &x, TK_FORMAT_E4M3, 128, &sfShape, 0, &c.out, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("sf has shape (64, 57); the contract is (M, Kb) with Kb = 56 (ceil(K / num_per_channels))"), std::string::npos);
  tk_tensor sfCol = tensor(TK_F32, {64, 56}, {1, 64});
  EXPECT_EQ(tk_per_token_cast_with_precomputed_sf(ctx, &x, TK_FORMAT_E4M3, 128, &sfCol, 0, &c.out, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("sf needs a unit innermost stride, got 64"), std::string::npos);
  EXPECT_EQ(tk_per_token_cast_with_precomputed_sf(ctx, &x, TK_FORMAT_E4M3, 128, nullptr, 0, &c.out, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("sf is null"), std::string::npos);
}

TEST_F(Validation, Transpose) {
  tk_tensor x = tensor(TK_BF16, {128, 256}), out = tensor(TK_BF16, {256, 128});
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_transpose(ctx, &x, &out, nullptr), want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  x = tensor(TK_BF16, {100, 256});
  out = tensor(TK_BF16, {256, 100});
  expect(TK_ERROR_INVALID_ARGUMENT, "rows and columns must be multiples of 64, got 100 x 256");
  x = tensor(TK_BF16, {128, 256}, {258, 1});
  out = tensor(TK_BF16, {256, 128});
  expect(TK_ERROR_INVALID_ARGUMENT, "row stride must be a multiple of 4");
  x = tensor(TK_BF16, {128, 256});
  out = tensor(TK_F32, {256, 128});
  expect(TK_ERROR_INVALID_ARGUMENT, "out must be bf16, got f32");
  out = tensor(TK_BF16, {128, 256});
  expect(TK_ERROR_INVALID_ARGUMENT, "out has shape (128, 256); the contract is (C, R) with C = 256 (x dimension 1)");
  out = tensor(TK_BF16, {256, 128}, {1, 256});
  expect(TK_ERROR_INVALID_ARGUMENT, "out must be contiguous (row-major) (1, 256, 128)");
  x = tensor(TK_I64, {128, 256});
  out = tensor(TK_I64, {256, 128});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be e4m3, i8, u8, bf16, f16, i16, f32 or i32, got i64");
  // batched: the batch stride must be rows x row stride.
  tk_tensor bx = tensor(TK_BF16, {2, 128, 256}, {128 * 256 + 64, 256, 1}), bout = tensor(TK_BF16, {2, 256, 128});
  EXPECT_EQ(tk_batched_transpose(ctx, &bx, &bout, nullptr), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("batch stride must be rows x row stride"), std::string::npos);
  EXPECT_EQ(tk_batched_transpose(ctx, &x, &bout, nullptr), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("x must have 3 dimensions, got 2"), std::string::npos);
  // Empty: nothing to do.
  tk_tensor ex = tensor(TK_BF16, {0, 128, 256}), eout = tensor(TK_BF16, {0, 256, 128});
  EXPECT_EQ(tk_batched_transpose(ctx, &ex, &eout, nullptr), TK_SUCCESS) << tk_last_error();
}

TEST_F(Validation, CastBack) {
  tk_tensor x = tensor(TK_F8_E4M3, {256, 512}), sf = tensor(TK_F32, {2, 4}), out = tensor(TK_BF16, {256, 512});
  int32_t block[2] = {128, 128};
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_cast_back(ctx, &x, &sf, block, &out, nullptr), want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  EXPECT_EQ(tk_cast_back(ctx, &x, &sf, nullptr, &out, nullptr), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("x_block_size is null"), std::string::npos);
  EXPECT_EQ(tk_cast_back(ctx, &x, nullptr, block, &out, nullptr), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("x_sf is null"), std::string::npos);
  block[1] = 0;
  expect(TK_ERROR_INVALID_ARGUMENT, "x_block_size must be positive, got (128, 0)");
  block[1] = 128;
  sf = tensor(TK_F32, {2, 5});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf must have shape (2, 4) for x (256, 512) and blocks (128, 128), got (2, 5)");
  sf = tensor(TK_F32, {2, 4}, {-1, 2});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf has a negative stride in dimension 0");
  sf = tensor(TK_BF16, {2, 4});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf must be f32 or i32, got bf16");
  sf = tensor(TK_I32, {2, 4}, {1, 4});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf (packed UE8M0) must have shape (2, 1), got (2, 4)");
  sf = tensor(TK_I32, {2, 1}, {2, 4});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf (packed UE8M0) must have strides (1, at least 2), got (2, 4)");
  sf = tensor(TK_F32, {2, 4}, {1, 4}); // column-major is fine
  out = tensor(TK_F16, {256, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "out must be bf16 or f32, got f16");
  out = tensor(TK_F32, {256, 448});
  expect(TK_ERROR_INVALID_ARGUMENT, "out has shape (256, 448); the contract is (M, K) with K = 512 (x's width)");
  out = tensor(TK_BF16, {256, 512});
  x = tensor(TK_BF16, {256, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be e4m3, i8 or u8, got bf16");
  x = tensor(TK_U8, {256, 770});
  expect(TK_ERROR_INVALID_ARGUMENT, "x's width must be a multiple of 12, got 770");
  x = tensor(TK_U8, {256, 384}); // packed e5m6: logical K = 256, not 512
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf must have shape (2, 2) for x (256, 256)");
  x = tensor(TK_I8, {256, 128}); // packed e2m1: logical K = 256, not 512
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf must have shape (2, 2) for x (256, 256)");
  x = tensor(TK_F8_E4M3, {256, 512}, {1024, 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be contiguous");
  x = tensor(TK_F8_E4M3, {256, 480});
  sf = tensor(TK_F32, {2, 4});
  out = tensor(TK_BF16, {256, 480});
  expect(TK_ERROR_INVALID_ARGUMENT, "the row width must be a multiple of 64, got 480");
  // Empty: nothing to do.
  x = tensor(TK_F8_E4M3, {0, 512});
  sf = tensor(TK_F32, {0, 4});
  out = tensor(TK_BF16, {0, 512});
  EXPECT_EQ(tk_cast_back(ctx, &x, &sf, block, &out, nullptr), TK_SUCCESS) << tk_last_error();
}

TEST_F(Validation, QuantizedInput) {
  tk_tensor x = tensor(TK_F8_E4M3, {256, 512}), xsf = tensor(TK_F32, {2, 4});
  tk_tensor out = tensor(TK_F8_E4M3, {256, 512}), sf = tensor(TK_F32, {256, 4});
  int32_t block[2] = {128, 128};
  int32_t g = 128;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_per_token_cast(ctx, &x, &xsf, block, TK_FORMAT_E4M3, g, TK_ROUND_SF, &out, &sf, nullptr), want)
        << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  EXPECT_EQ(tk_per_token_cast(ctx, &x, &xsf, nullptr, TK_FORMAT_E4M3, g, 0, &out, &sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("needs both x_sf and x_block_size"), std::string::npos);
  xsf = tensor(TK_F32, {2, 5});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf must have shape (2, 4), got (2, 5)");
  xsf = tensor(TK_BF16, {2, 4});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf must be f32 or i32, got bf16");
  xsf = tensor(TK_I32, {2, 4}, {1, 4});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf (packed UE8M0) must have shape (2, 1), got (2, 4)");
  xsf = tensor(TK_F32, {2, 4});
  x = tensor(TK_BF16, {256, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be e4m3 or i8, got bf16");
  x = tensor(TK_I8, {256, 128}); // packed e2m1: the logical width is 256, not 128
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf must have shape (2, 2), got (2, 4)");
  x = tensor(TK_I8, {256, 256}); // logical 512: x_sf fits, out must be (256, 512)
  out = tensor(TK_F8_E4M3, {256, 256});
  expect(TK_ERROR_INVALID_ARGUMENT, "out has shape (256, 256); the contract is (M, Kout) with Kout = 512 (K)");
  out = tensor(TK_F8_E4M3, {256, 512});
  x = tensor(TK_F8_E4M3, {256, 512});
  g = 512;
  expect(TK_ERROR_INVALID_ARGUMENT, "a quantized input needs num_per_channels below the hidden size");
  g = 128;
  block[0] = 0;
  expect(TK_ERROR_INVALID_ARGUMENT, "x_block_size must be positive, got (0, 128)");
  block[0] = 128;
  block[1] = 96; // not a divisor of the kernel's tile width
  xsf = tensor(TK_F32, {2, 6});
  expect(TK_ERROR_UNSUPPORTED, "do not fit this kernel's");
  EXPECT_EQ(tk_per_token_cast_with_sf_only(ctx, &x, &xsf, block, TK_FORMAT_E4M3, g, 0, &sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("takes a plain (not quantized) input"), std::string::npos);
}

TEST_F(Validation, PerBlockCast) {
  tk_tensor x = tensor(TK_BF16, {256, 512}), out = tensor(TK_F8_E4M3, {256, 512}), sf = tensor(TK_F32, {2, 4});
  int32_t block[2] = {128, 128};
  uint32_t flags = TK_ROUND_SF;
  tk_format fmt = TK_FORMAT_E4M3;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_per_block_cast(ctx, &x, fmt, block, flags, &out, &sf, nullptr), want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  EXPECT_EQ(tk_per_block_cast(ctx, &x, fmt, nullptr, flags, &out, &sf, nullptr), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("block_size is null"), std::string::npos);
  block[0] = 64;
  expect(TK_ERROR_INVALID_ARGUMENT, "block_size must be (32 or 128, 32 or 128), got (64, 128)");
  block[0] = 128;
  x = tensor(TK_BF16, {256, 512}, {1024, 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be contiguous");
  x = tensor(TK_I8, {256, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be bf16 or f32, got i8");
  x = tensor(TK_BF16, {256, 480});
  out = tensor(TK_F8_E4M3, {256, 480});
  expect(TK_ERROR_INVALID_ARGUMENT, "the row width must be a multiple of 64, got 480");
  x = tensor(TK_BF16, {256, 512});
  out = tensor(TK_F8_E4M3, {256, 512});
  flags = TK_ROUND_SF | TK_PACKED_UE8M0;
  expect(TK_ERROR_INVALID_ARGUMENT, "TK_PACKED_UE8M0 needs TK_SF_COL_MAJOR and TK_ROUND_SF");
  flags |= TK_SF_COL_MAJOR;
  expect(TK_ERROR_INVALID_ARGUMENT, "out_sf must be i32, got f32");
  sf = tensor(TK_I32, {2, 2}, {1, 4});
  expect(TK_ERROR_INVALID_ARGUMENT, "out_sf (packed UE8M0) must have shape (2, 1), got (2, 2)");
  sf = tensor(TK_I32, {2, 1}, {2, 4}); // column-major words, rows padded to 4
  expect(TK_ERROR_INVALID_ARGUMENT, "out_sf (packed UE8M0) must have strides (1, 4), got (2, 4)");
  sf = tensor(TK_F32, {2, 4});
  flags = TK_ROUND_SF;
  fmt = TK_FORMAT_E5M6;
  expect(TK_ERROR_INVALID_ARGUMENT, "fmt must be TK_FORMAT_E4M3 or TK_FORMAT_E2M1");
  fmt = TK_FORMAT_E2M1;
  expect(TK_ERROR_INVALID_ARGUMENT, "out must be i8, got e4m3");
  out = tensor(TK_I8, {256, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "out has shape (256, 512); the contract is (M, Kout) with Kout = 256 (K / 2: two e2m1 codes per byte)");
  out = tensor(TK_F8_E4M3, {256, 512});
  fmt = TK_FORMAT_E4M3;
  sf = tensor(TK_F32, {2, 5});
  expect(TK_ERROR_INVALID_ARGUMENT, "out_sf must have shape (2, 4), got (2, 5)");
  sf = tensor(TK_F32, {2, 4});
  flags = TK_ROUND_SF | TK_SF_COL_MAJOR;
  expect(TK_ERROR_INVALID_ARGUMENT, "out_sf must have strides (1, 4) (TMA-aligned column-major), got (4, 1)");
  flags = TK_ROUND_SF;
  out = tensor(TK_BF16, {256, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "out must be e4m3, got bf16");
  out = tensor(TK_F8_E4M3, {256, 512});
  // sf_only and precomputed_sf
  tk_tensor col = tensor(TK_F32, {2, 4}, {1, 4});
  EXPECT_EQ(tk_per_block_cast_with_sf_only(ctx, &x, fmt, block, TK_ROUND_SF, &col, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("out_sf must have strides (4, 1) (row-major)"), std::string::npos)
      << tk_last_error();
  EXPECT_EQ(tk_per_block_cast_with_precomputed_sf(ctx, &x, fmt, block, &sf, TK_SF_COL_MAJOR, &out, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("TK_SF_COL_MAJOR and TK_PACKED_UE8M0 are not accepted"),
            std::string::npos);
  EXPECT_EQ(tk_per_block_cast_with_precomputed_sf(ctx, &x, fmt, block, nullptr, 0, &out, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("sf is null"), std::string::npos);
  // Empty: nothing to do.
  x = tensor(TK_BF16, {0, 512});
  out = tensor(TK_F8_E4M3, {0, 512});
  sf = tensor(TK_F32, {0, 4});
  expect(TK_SUCCESS, "");
}

TEST_F(Validation, PerChannelCast) {
  tk_tensor x = tensor(TK_BF16, {256, 512}), out = tensor(TK_F8_E4M3, {256, 512}), sf = tensor(TK_F32, {2, 512});
  auto expect = [&](tk_status want, const std::string &msg, int32_t b = 128, uint32_t flags = 0) {
    EXPECT_EQ(tk_per_channel_cast(ctx, &x, TK_FORMAT_E4M3, b, flags, &out, &sf, nullptr), want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  expect(TK_ERROR_INVALID_ARGUMENT, "num_per_tokens must be 128, got 32", 32);
  expect(TK_ERROR_INVALID_ARGUMENT, "only TK_ROUND_SF is accepted", 128, TK_SF_COL_MAJOR);
  x = tensor(TK_BF16, {200, 512});
  out = tensor(TK_F8_E4M3, {200, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must have a multiple of 128 rows and of 64 columns, got (200, 512)");
  x = tensor(TK_BF16, {256, 512});
  out = tensor(TK_F8_E4M3, {512, 256});
  expect(TK_ERROR_INVALID_ARGUMENT, "out has shape (512, 256); the contract is (R, K) with R = 256 (x's rows)");
  out = tensor(TK_F8_E4M3, {256, 512});
  sf = tensor(TK_F32, {1, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "out_sf has shape (1, 512); the contract is (Rb, K) with Rb = 2 (ceil(R / num_per_tokens))");
  sf = tensor(TK_F32, {2, 512});
  x = tensor(TK_I32, {256, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be bf16 or f32, got i32");
  // The transposed form: bf16 only, b in {32, 128}, out (K, M).
  x = tensor(TK_F32, {256, 512});
  out = tensor(TK_F8_E4M3, {512, 256});
  sf = tensor(TK_F32, {8, 512});
  EXPECT_EQ(tk_per_channel_cast_and_transpose(ctx, &x, TK_FORMAT_E4M3, 32, 0, &out, &sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("x must be bf16, got f32"), std::string::npos) << tk_last_error();
  x = tensor(TK_BF16, {256, 512});
  EXPECT_EQ(tk_per_channel_cast_and_transpose(ctx, &x, TK_FORMAT_E4M3, 64, 0, &out, &sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("num_per_tokens must be 32 or 128, got 64"), std::string::npos);
  out = tensor(TK_F8_E4M3, {256, 512});
  EXPECT_EQ(tk_per_channel_cast_and_transpose(ctx, &x, TK_FORMAT_E4M3, 32, 0, &out, &sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("out has shape (256, 512); the contract is (K, R) with K = 512 (the columns cast)"), std::string::npos);
  // Empty: nothing to do.
  x = tensor(TK_BF16, {0, 512});
  out = tensor(TK_F8_E4M3, {0, 512});
  sf = tensor(TK_F32, {0, 512});
  expect(TK_SUCCESS, "");
}

TEST_F(Validation, EmptyInputLaunchesNothing) {
  Call c{ctx};
  c.x = tensor(TK_BF16, {0, 7168});
  c.out = tensor(TK_F8_E4M3, {0, 7168});
  c.sf = tensor(TK_F32, {0, 56});
  EXPECT_EQ(c.run(), TK_SUCCESS) << tk_last_error();
  // Empty tensors with any strides (NumPy's (0, 64) arrays have strides (0, 0)).
  tk_tensor x = tensor(TK_BF16, {0, 64}), out = tensor(TK_BF16, {64, 0});
  x.strides[0] = x.strides[1] = 0;
  out.strides[0] = out.strides[1] = 0;
  EXPECT_EQ(tk_transpose(ctx, &x, &out, nullptr), TK_SUCCESS) << tk_last_error();
}

} // namespace

namespace {

TEST_F(Validation, PerBlockCastLossless) {
  tk_tensor x = tensor(TK_I8, {64, 256}), xsf = tensor(TK_F32, {64, 16}), out = tensor(TK_F8_E4M3, {64, 512}),
            sf = tensor(TK_F32, {64, 4});
  int32_t in[2] = {1, 32}, ob[2] = {1, 128};
  tk_format fmt = TK_FORMAT_E4M3;
  uint32_t flags = TK_ROUND_SF;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_per_block_cast_lossless(ctx, &x, &xsf, in, fmt, ob, flags, &out, &sf, nullptr), want)
        << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  EXPECT_EQ(tk_per_block_cast_lossless(ctx, &x, &xsf, nullptr, fmt, ob, flags, &out, &sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("x_block_size is null"), std::string::npos);
  fmt = TK_FORMAT_E2M1;
  expect(TK_ERROR_INVALID_ARGUMENT, "fmt must be TK_FORMAT_E4M3");
  fmt = TK_FORMAT_E4M3;
  x = tensor(TK_F8_E4M3, {64, 256});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be i8, got e4m3");
  x = tensor(TK_I8, {64, 8});
  expect(TK_ERROR_INVALID_ARGUMENT, "the logical row width (twice x's) must be a multiple of 32, got 16");
  x = tensor(TK_I8, {64, 256});
  ob[1] = 80;
  expect(TK_ERROR_INVALID_ARGUMENT, "out_block_size (1, 80) must be a multiple of x_block_size (1, 32)");
  ob[1] = 128;
  in[1] = 24;
  ob[1] = 48;
  expect(TK_ERROR_INVALID_ARGUMENT, "the block widths must be powers of two, got 24 and 48");
  in[1] = 32;
  ob[0] = 96;
  ob[1] = 128;
  expect(TK_ERROR_UNSUPPORTED, "block heights that are not powers of two (x_block_size (1, 32), out_block_size (96, 128))");
  ob[0] = 1;
  xsf = tensor(TK_F32, {64, 15});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf must have shape (64, 16), got (64, 15)");
  xsf = tensor(TK_F32, {64, 16});
  out = tensor(TK_F8_E4M3, {64, 256});
  expect(TK_ERROR_INVALID_ARGUMENT, "out has shape (64, 256); the contract is (M, K) with K = 512 (twice x's width: two e2m1 codes per byte)");
  out = tensor(TK_F8_E4M3, {64, 512});
  flags = TK_PACKED_UE8M0;
  expect(TK_ERROR_INVALID_ARGUMENT, "TK_PACKED_UE8M0 needs TK_SF_COL_MAJOR");
  flags = TK_SF_COL_MAJOR;
  expect(TK_ERROR_INVALID_ARGUMENT, "out_sf must have strides (1, 64) (TMA-aligned column-major), got (4, 1)");
  flags = TK_ROUND_SF;
  tk_tensor empty = tensor(TK_I8, {0, 256}), emptyOut = tensor(TK_F8_E4M3, {0, 512}), emptySf = tensor(TK_F32, {0, 4}),
            emptyIn = tensor(TK_F32, {0, 16});
  EXPECT_EQ(tk_per_block_cast_lossless(ctx, &empty, &emptyIn, in, fmt, ob, flags, &emptyOut, &emptySf, nullptr),
            TK_SUCCESS)
      << tk_last_error();
}

} // namespace

namespace {

TEST_F(Validation, SwigluPerChannelCast) {
  tk_tensor x = tensor(TK_BF16, {256, 1024}), out = tensor(TK_F8_E4M3, {512, 256}), sf = tensor(TK_F32, {8, 512});
  float clamp = 0.5f;
  const float *clampPtr = &clamp;
  int32_t b = 32, without = 0;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_swiglu_forward_and_per_channel_cast_and_transpose(ctx, &x, TK_FORMAT_E4M3, b, TK_ROUND_SF, without,
                                                                   clampPtr, &out, &sf, nullptr),
              want)
        << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  b = 64;
  expect(TK_ERROR_INVALID_ARGUMENT, "num_per_tokens must be 32 or 128, got 64");
  b = 32;
  x = tensor(TK_BF16, {256, 960});
  expect(TK_ERROR_INVALID_ARGUMENT, "its column count must be a multiple of 128, got 960");
  x = tensor(TK_BF16, {200, 1024});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must have a multiple of 128 rows, got 200");
  x = tensor(TK_F32, {256, 1024});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be bf16, got f32");
  x = tensor(TK_BF16, {256, 1024});
  clamp = -1.0f;
  expect(TK_ERROR_INVALID_ARGUMENT, "swiglu_clamp_value must be a finite positive number");
  clamp = NAN;
  expect(TK_ERROR_INVALID_ARGUMENT, "swiglu_clamp_value must be a finite positive number");
  clamp = 0.5f;
  out = tensor(TK_F8_E4M3, {256, 512}); // (M, H) but transposed was asked for
  expect(TK_ERROR_INVALID_ARGUMENT, "out has shape (256, 512); the contract is (K, R) with K = 512 (the columns cast)");
  without = 1;
  sf = tensor(TK_F32, {2, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "out_sf has shape (2, 512); the contract is (Rb, K) with Rb = 8 (ceil(R / num_per_tokens))");
  EXPECT_EQ(tk_swiglu_forward_and_per_channel_cast_and_transpose(nullptr, &x, TK_FORMAT_E4M3, 32, 0, 0, nullptr, &out,
                                                                 &sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  x = tensor(TK_BF16, {0, 1024}); // no rows: nothing to do
  out = tensor(TK_F8_E4M3, {0, 512});
  sf = tensor(TK_F32, {0, 512});
  expect(TK_SUCCESS, "");
}

TEST_F(Validation, SwigluPerTokenCast) {
  tk_tensor x = tensor(TK_BF16, {64, 512}), out = tensor(TK_F8_E4M3, {64, 256}), sf = tensor(TK_F32, {64, 2});
  tk_tensor topk = tensor(TK_I32, {64}), weights = tensor(TK_F32, {32, 2}), experts = tensor(TK_I32, {64});
  tk_tensor counts = tensor(TK_I64, {3});
  const tk_tensor *topkPtr = &topk, *weightsPtr = &weights, *expertsPtr = &experts;
  tk_tensor *countsPtr = &counts;
  float clamp = 0.5f, sfMin = 1e-4f;
  const float *clampPtr = &clamp, *sfMinPtr = nullptr;
  int32_t g = 128;
  uint32_t flags = TK_ROUND_SF;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_swiglu_forward_and_per_token_cast(ctx, &x, TK_FORMAT_E4M3, g, topkPtr, weightsPtr, expertsPtr, flags,
                                                   clampPtr, countsPtr, sfMinPtr, &out, &sf, nullptr),
              want)
        << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  g = 64;
  expect(TK_ERROR_INVALID_ARGUMENT, "num_per_channels must be 128 or H = 256, got 64");
  g = 128;
  x = tensor(TK_BF16, {64, 384});
  expect(TK_ERROR_INVALID_ARGUMENT, "its column count must be a multiple of 256, got 384");
  x = tensor(TK_F8_E4M3, {64, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be bf16 or f32, got e4m3");
  x = tensor(TK_BF16, {64, 512});
  flags = TK_PACKED_UE8M0 | TK_ROUND_SF;
  expect(TK_ERROR_INVALID_ARGUMENT, "TK_PACKED_UE8M0 needs TK_SF_COL_MAJOR and TK_ROUND_SF");
  flags = TK_SF_COL_MAJOR;
  g = 256;
  sf = tensor(TK_F32, {64, 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "TK_SF_COL_MAJOR needs num_per_channels = 128");
  g = 128, flags = TK_ROUND_SF, sf = tensor(TK_F32, {64, 2});
  weightsPtr = nullptr;
  expect(TK_ERROR_INVALID_ARGUMENT, "pos_to_token_topk and topk_weights come together");
  weightsPtr = &weights;
  clampPtr = nullptr;
  expect(TK_ERROR_INVALID_ARGUMENT, "clamped_count needs swiglu_clamp_value");
  clampPtr = &clamp;
  clamp = -2.0f;
  expect(TK_ERROR_INVALID_ARGUMENT, "swiglu_clamp_value must be a finite positive number");
  clamp = 0.5f;
  sfMinPtr = &sfMin;
  sfMin = 1e-40f;
  expect(TK_ERROR_INVALID_ARGUMENT, "sf_clamp_min must be at least 448 * 2^-126 (a normal scale)");
  sfMin = 0.0f;
  expect(TK_ERROR_INVALID_ARGUMENT, "sf_clamp_min must be a finite positive number");
  sfMinPtr = nullptr;
  topk = tensor(TK_I32, {63});
  expect(TK_ERROR_INVALID_ARGUMENT, "pos_to_token_topk has shape (63,); the contract is (N,) with N = 64 (x dimension 0)");
  topk = tensor(TK_I64, {64});
  expect(TK_ERROR_INVALID_ARGUMENT, "pos_to_token_topk");
  topk = tensor(TK_I32, {64});
  experts = tensor(TK_I32, {64, 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "pos_to_expert");
  experts = tensor(TK_I32, {64});
  counts = tensor(TK_I32, {3});
  expect(TK_ERROR_INVALID_ARGUMENT, "clamped_count");
  counts = tensor(TK_I64, {4});
  expect(TK_ERROR_INVALID_ARGUMENT, "clamped_count has shape (4,); its dimension 0 must be 3 (the contract is (3,))");
  counts = tensor(TK_I64, {3});
  weights = tensor(TK_F32, {32, 2}, {4, 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "topk_weights must be contiguous (row-major) (32, 2)");
  weights = tensor(TK_F32, {32, 2});
  out = tensor(TK_F8_E4M3, {64, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "out has shape (64, 512); the contract is (N, H) with H = 256 (x's columns / 2)");
  out = tensor(TK_F8_E4M3, {64, 256});
  sf = tensor(TK_F32, {64, 3});
  expect(TK_ERROR_INVALID_ARGUMENT, "out_sf");
  sf = tensor(TK_F32, {64, 2});
  EXPECT_EQ(tk_swiglu_forward_and_per_token_cast(nullptr, &x, TK_FORMAT_E4M3, 128, nullptr, nullptr, nullptr, 0,
                                                 nullptr, nullptr, nullptr, &out, &sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  // No rows: nothing to do, the counters are not touched. (They must not share memory with topk_weights even
  // so: every tensor here points at `fake`, which the counters leave now.)
  x = tensor(TK_BF16, {0, 512}), out = tensor(TK_F8_E4M3, {0, 256}), sf = tensor(TK_F32, {0, 2});
  topk = tensor(TK_I32, {0}), experts = tensor(TK_I32, {0});
  expect(TK_ERROR_INVALID_ARGUMENT, "output clamped_count (bytes");
  expect(TK_ERROR_INVALID_ARGUMENT, "overlaps input topk_weights");
  std::vector<int64_t> ownCounts(3); // on the heap: far from `fake` and what its descriptors claim past it
  counts.data = ownCounts.data();
  expect(TK_SUCCESS, "");
}

TEST_F(Validation, SwigluBackward) {
  const int64_t n = 32, h = 256, t = 16, k = 2;
  tk_tensor x = tensor(TK_F8_E4M3, {n, 2 * h}), xs = tensor(TK_F32, {n, 2 * h / 128}), go = tensor(TK_BF16, {n, h});
  tk_tensor w = tensor(TK_F32, {t, k}), topk = tensor(TK_I32, {n}), ttp = tensor(TK_I32, {t, k});
  tk_tensor out = tensor(TK_BF16, {n, h}), fp8 = tensor(TK_F8_E4M3, {n, 2 * h}), sf = tensor(TK_F32, {n, 2 * h / 128});
  tk_tensor grad = tensor(TK_BF16, {n, 2 * h}), wg = tensor(TK_F32, {t, k});
  int32_t g = 128;
  uint32_t flags = TK_ROUND_SF;
  float clamp = 10.0f;
  const float *clampPtr = nullptr;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_swiglu_backward_and_per_token_cast(ctx, &x, &xs, &go, &w, &topk, &ttp, g, flags, clampPtr, &out, &fp8,
                                                    &sf, &grad, &wg, nullptr),
              want)
        << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  g = 64;
  expect(TK_ERROR_INVALID_ARGUMENT, "num_per_channels must be 32 or 128, got 64");
  g = 128;
  flags = TK_SF_COL_MAJOR;
  expect(TK_ERROR_INVALID_ARGUMENT, "only TK_ROUND_SF is accepted");
  flags = TK_ROUND_SF;
  clampPtr = &clamp, clamp = INFINITY;
  expect(TK_ERROR_INVALID_ARGUMENT, "swiglu_clamp_value must be a finite positive number");
  clampPtr = nullptr;
  x = tensor(TK_BF16, {n, 2 * h});
  expect(TK_ERROR_INVALID_ARGUMENT, "x");
  x = tensor(TK_F8_E4M3, {n, 192});
  expect(TK_ERROR_INVALID_ARGUMENT, "x has 2H columns with H a multiple of num_per_channels = 128, got 192");
  x = tensor(TK_F8_E4M3, {n, 2 * h});
  xs = tensor(TK_F32, {n, 8});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf has shape (32, 8); the contract is (N, S) with S = 4 (2H / num_per_channels)");
  xs = tensor(TK_F32, {n, 4});
  go = tensor(TK_BF16, {n, 2 * h});
  expect(TK_ERROR_INVALID_ARGUMENT, "grad_out must be viewable as (32, 256)");
  go = tensor(TK_BF16, {n, h});
  ttp = tensor(TK_I32, {t, k + 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "token_topk_to_pos has shape (16, 3); the contract is (T, k) with k = 2 (weight dimension 1)");
  ttp = tensor(TK_I32, {t, k});
  topk = tensor(TK_I32, {n + 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "pos_to_token_topk has shape (33,); the contract is (N,) with N = 32 (x's rows)");
  topk = tensor(TK_I32, {n});
  wg = tensor(TK_F32, {t, k}, {4, 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "weight_grad must be contiguous (row-major) (16, 2)");
  wg = tensor(TK_F32, {t, k});
  sf = tensor(TK_F32, {n, 2 * h / 32});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_grad_sf has shape (32, 16); the contract is (N, S) with S = 4 (2H / num_per_channels)");
  sf = tensor(TK_F32, {n, 4});
  // 3-D x and grad_out are flattened to rows.
  x = tensor(TK_F8_E4M3, {4, 8, 2 * h});
  go = tensor(TK_BF16, {4, 8, h + 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "grad_out must be viewable as (32, 256)");
  EXPECT_EQ(tk_swiglu_backward_and_per_token_cast(nullptr, &x, &xs, &go, &w, &topk, &ttp, 128, 0, nullptr, &out, &fp8,
                                                  &sf, &grad, &wg, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
}

TEST_F(Validation, PerChannelCastFused) {
  tk_tensor x = tensor(TK_F8_E4M3, {256, 512}), xs = tensor(TK_F32, {256, 4}), out = tensor(TK_F8_E4M3, {256, 512}),
            sf = tensor(TK_F32, {2, 512});
  int32_t perChannels = 128;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_per_channel_cast_fused(ctx, &x, &xs, TK_FORMAT_E4M3, 128, TK_ROUND_SF, perChannels, nullptr, &out,
                                        &sf, nullptr),
              want)
        << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  perChannels = 64;
  expect(TK_ERROR_INVALID_ARGUMENT, "a quantized x needs num_per_channels = 128, got 64");
  perChannels = 128;
  x = tensor(TK_BF16, {256, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must be e4m3, got bf16");
  x = tensor(TK_F8_E4M3, {256, 576});
  out = tensor(TK_F8_E4M3, {256, 576});
  expect(TK_ERROR_INVALID_ARGUMENT, "a quantized x needs a multiple of 128 columns, got 576");
  x = tensor(TK_F8_E4M3, {256, 512});
  out = tensor(TK_F8_E4M3, {256, 512});
  xs = tensor(TK_F32, {256, 4}, {8, 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf must be contiguous (row-major) (256, 4)");
  xs = tensor(TK_F32, {256, 4});
  x = tensor(TK_F8_E4M3, {200, 512});
  xs = tensor(TK_F32, {200, 4});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must have a multiple of 128 rows and of 64 columns, got (200, 512)");
  // Plain input: as tk_per_channel_cast, num_per_channels must be 0.
  x = tensor(TK_BF16, {256, 512});
  EXPECT_EQ(tk_per_channel_cast_fused(ctx, &x, nullptr, TK_FORMAT_E4M3, 128, 0, 128, nullptr, &out, &sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("num_per_channels is for a quantized x"), std::string::npos);
}

// The row gather: N_out = len(pos_to_token) rows of output, any N of x.
TEST_F(Validation, PerChannelCastFusedRowGather) {
  tk_tensor x = tensor(TK_BF16, {100, 512}), pos = tensor(TK_I32, {256}), out = tensor(TK_F8_E4M3, {256, 512}),
            sf = tensor(TK_F32, {2, 512});
  const tk_tensor *xs = nullptr;
  int32_t perChannels = 0;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_per_channel_cast_fused(ctx, &x, xs, TK_FORMAT_E4M3, 128, 0, perChannels, &pos, &out, &sf, nullptr),
              want)
        << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  pos = tensor(TK_I32, {250});
  expect(TK_ERROR_INVALID_ARGUMENT, "pos_to_token's length (N_out) must be a multiple of 16, got 250");
  pos = tensor(TK_I64, {256});
  expect(TK_ERROR_INVALID_ARGUMENT, "pos_to_token");
  pos = tensor(TK_I32, {256});
  out = tensor(TK_F8_E4M3, {100, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "out has shape (100, 512); the contract is (R, K) with R = 256 (N_out = len(pos_to_token))");
  out = tensor(TK_F8_E4M3, {256, 512});
  sf = tensor(TK_F32, {1, 512});
  expect(TK_ERROR_INVALID_ARGUMENT, "out_sf has shape (1, 512); the contract is (Rb, K) with Rb = 2 (ceil(R / num_per_tokens))");
  sf = tensor(TK_F32, {2, 512});
  x = tensor(TK_BF16, {100, 576 + 32});
  out = tensor(TK_F8_E4M3, {256, 608});
  sf = tensor(TK_F32, {2, 608});
  expect(TK_ERROR_INVALID_ARGUMENT, "x must have a multiple of 64 columns, got 608");
  x = tensor(TK_F8_E4M3, {100, 512}), out = tensor(TK_F8_E4M3, {256, 512}), sf = tensor(TK_F32, {2, 512});
  tk_tensor scales = tensor(TK_F32, {100, 4});
  xs = &scales;
  expect(TK_ERROR_INVALID_ARGUMENT, "a quantized x needs num_per_channels = 128, got 0");
  perChannels = 128;
  scales = tensor(TK_F32, {256, 4});
  expect(TK_ERROR_INVALID_ARGUMENT, "x_sf has shape (256, 4); the contract is (N, Kq) with N = 100 (x's rows)");
  // No output rows: nothing to do.
  scales = tensor(TK_F32, {100, 4}), pos = tensor(TK_I32, {0}), out = tensor(TK_F8_E4M3, {0, 512});
  sf = tensor(TK_F32, {0, 512});
  expect(TK_SUCCESS, "");
}

} // namespace
