// The argument checks of the MoE operators of the fused (expert-major)
// layout: expand_to_fused, expand_to_fused_with_sf and reduce_fused. Each
// fails with a status and a message naming the argument, before touching any
// device (these run without a GPU).
#include "checks/gpu_session.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <string>

namespace {

class MoeLayoutValidation : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS); }
  void TearDown() override { tk_context_destroy(ctx); }
  /// The call's status is `want` and tk_last_error() contains `msg`.
  void expect(tk_status got, tk_status want, const std::string &msg) {
    EXPECT_EQ(got, want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  }
  tk_context ctx = nullptr;
};

alignas(16) char fake[16];

tk_tensor tensor(tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  return tk::checks::deviceTensor(fake, dtype, std::move(shape), std::move(strides));
}

TEST_F(MoeLayoutValidation, ExpandToFused) {
  tk_tensor x = tensor(TK_BF16, {64, 2048}), pos = tensor(TK_I32, {64, 8}), experts = tensor(TK_I32, {640}),
            out = tensor(TK_BF16, {640, 2048});
  auto call = [&] { return tk_expand_to_fused(ctx, &x, &pos, &experts, &out, nullptr); };
  out = tensor(TK_F32, {640, 2048});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "expanded_x must be bf16, got f32");
  out = tensor(TK_BF16, {640, 1024});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "expanded_x has shape (640, 1024); the contract is (M, H) with H = 2048");
  out = tensor(TK_BF16, {600, 2048});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "with M = 640 (pos_to_expert dimension 0)");
  out = tensor(TK_BF16, {640, 2048});
  pos = tensor(TK_I64, {64, 8});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "token_topk_to_pos must be i32, got i64");
  pos = tensor(TK_I32, {63, 8});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "with N = 64 (x dimension 0)");
  pos = tensor(TK_I32, {64, 65});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "K (token_topk_to_pos's columns) must be in [1, 64], got 65");
  pos = tensor(TK_I32, {64, 8});
  experts = tensor(TK_I32, {640, 1});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "pos_to_expert");
  experts = tensor(TK_I32, {640});
  x = tensor(TK_BF16, {64, 2048}, {4096, 1});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "x must be contiguous");
  // No position: nothing to write, no device needed.
  x = tensor(TK_BF16, {64, 2048});
  experts = tensor(TK_I32, {0});
  out = tensor(TK_BF16, {0, 2048});
  EXPECT_EQ(call(), TK_SUCCESS) << tk_last_error();
}

TEST_F(MoeLayoutValidation, ExpandToFusedWithSf) {
  tk_tensor x = tensor(TK_F8_E4M3, {64, 2048}), sf = tensor(TK_F32, {64, 16}), pos = tensor(TK_I32, {64, 8}),
            experts = tensor(TK_I32, {642}), out = tensor(TK_F8_E4M3, {642, 2048}), sfOut = tensor(TK_F32, {642, 16});
  int32_t channels = 128, colMajor = 0;
  auto call = [&] {
    return tk_expand_to_fused_with_sf(ctx, &x, &sf, channels, &pos, &experts, colMajor, &out, &sfOut, nullptr);
  };
  channels = 64;
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "num_per_channels must be 32 or 128, got 64");
  channels = 32;
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "x_sf has 16 columns; the contract is 64 for H = 2048 in blocks of 32");
  channels = 128;
  sf = tensor(TK_I32, {64, 4});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "int32 (packed UE8M0) x_sf needs use_tma_aligned_col_major_sf");
  colMajor = 1;
  sfOut = tensor(TK_I32, {642, 4}, {1, 642});
  expect(call(), TK_ERROR_INVALID_ARGUMENT,
         "expanded_sf must be the TMA-aligned column-major view, strides (1, 644) (storage (Hs, align(M, 4))), got "
         "(1, 642)");
  sfOut = tensor(TK_F32, {642, 4}, {1, 644});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "expanded_sf must be i32, got f32");
  sf = tensor(TK_I32, {64, 5});
  sfOut = tensor(TK_I32, {642, 4}, {1, 644});
  expect(call(), TK_ERROR_INVALID_ARGUMENT,
         "x_sf has 5 columns; the contract is 4 words of 4 packed UE8M0 exponents for H = 2048 in blocks of 128");
  sf = tensor(TK_F16, {64, 16});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "x_sf must be");
}

TEST_F(MoeLayoutValidation, ReduceFused) {
  tk_tensor x = tensor(TK_BF16, {512, 2048}), w = tensor(TK_F32, {64, 8}), pos = tensor(TK_I32, {64, 8}),
            out = tensor(TK_BF16, {64, 2048}), xSf = tensor(TK_F32, {512}), sf = tensor(TK_F32, {1});
  const tk_tensor *xSfArg = nullptr, *wArg = &w, *sfArg = nullptr;
  auto call = [&] { return tk_reduce_fused(ctx, &x, xSfArg, wArg, &pos, sfArg, &out, nullptr); };
  sfArg = &sf;
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "sf (the global output scale) is only allowed with an e4m3 out");
  sfArg = nullptr;
  out = tensor(TK_F32, {64, 2048});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "out must be bf16 or e4m3, got f32");
  out = tensor(TK_BF16, {64, 2048});
  xSfArg = &xSf;
  xSf = tensor(TK_F32, {511});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "x_sf has shape (511,); the contract is (M,) with M = 512 (x dimension 0)");
  xSfArg = nullptr;
  w = tensor(TK_F32, {64, 6});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "topk_weights has shape (64, 6); the contract is (N, K)");
  w = tensor(TK_BF16, {64, 8});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "topk_weights must be f32, got bf16");
  w = tensor(TK_F32, {64, 8});
  x = tensor(TK_F16, {512, 2048});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "x must be");
  x = tensor(TK_BF16, {512, 2048});
  pos = tensor(TK_I32, {64, 0});
  wArg = nullptr;
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "K (token_topk_to_pos's columns) must be in [1, 64], got 0");
  // No token: nothing to write, no device needed.
  pos = tensor(TK_I32, {0, 8});
  out = tensor(TK_BF16, {0, 2048});
  EXPECT_EQ(call(), TK_SUCCESS) << tk_last_error();
}

} // namespace

namespace {

TEST_F(MoeLayoutValidation, GetFusedMapping) {
  tk_tensor ids = tensor(TK_I64, {64, 8}), pos[3] = {tensor(TK_I32, {640}), tensor(TK_I32, {640}), tensor(TK_I32, {640})},
            toPos = tensor(TK_I32, {64, 8}), start = tensor(TK_I32, {32}), end = tensor(TK_I32, {32}),
            lengths = tensor(TK_I32, {32});
  int32_t experts = 32, alignment = 16;
  auto call = [&] {
    return tk_get_fused_mapping(ctx, &ids, experts, alignment, &pos[0], &pos[1], &pos[2], &toPos, &start, &end,
                                &lengths, nullptr, nullptr);
  };
  experts = 0;
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "num_experts must be in [1, 1024], got 0");
  experts = 1025;
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "num_experts must be in [1, 1024], got 1025");
  experts = 32, alignment = 0;
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "alignment must be at least 1, got 0");
  alignment = 16;
  ids = tensor(TK_I32, {64, 8});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "topk_idx must be i64, got i32");
  ids = tensor(TK_I64, {64, 8});
  pos[1] = tensor(TK_I32, {639});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "pos_to_token");
  pos[1] = tensor(TK_I32, {640});
  toPos = tensor(TK_I32, {64, 9});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "token_topk_to_pos");
  toPos = tensor(TK_I32, {64, 8});
  lengths = tensor(TK_I32, {31});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "num_tokens_per_expert");
  lengths = tensor(TK_I32, {32});
  start = tensor(TK_I64, {32});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "expert_start must be i32, got i64");
  start = tensor(TK_I32, {32});
  alignment = 1 << 30;
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "may exceed the i32 positions");
  // The bound the caller sizes the tables by.
  EXPECT_EQ(tk_fused_mapping_max_positions(64, 8, 32, 16), (64 * 8 + 15 * 32) / 16 * 16);
  EXPECT_EQ(tk_fused_mapping_max_positions(64, 8, 0, 16), -1);
}

} // namespace
