// The MoE operators' argument checks: a status and a message naming the
// argument, before touching any device (these run without a GPU).
#include "checks/gpu_session.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <string>

namespace {

/// A context per test; the tensors are descriptors of a buffer nothing reads
/// (every case here fails, or has nothing to do, before a launch).
class MoeValidation : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS); }
  void TearDown() override { tk_context_destroy(ctx); }
  tk_context ctx = nullptr;
};

alignas(16) char fake[16];

tk_tensor tensor(tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  return tk::checks::deviceTensor(fake, dtype, std::move(shape), std::move(strides));
}

TEST_F(MoeValidation, TopkGate) {
  tk_tensor scores = tensor(TK_F32, {64, 72}), idx = tensor(TK_I64, {64, 6});
  int32_t k = 6;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_topk_gate(ctx, &scores, k, &idx, nullptr), want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  k = 0;
  expect(TK_ERROR_INVALID_ARGUMENT, "num_topk must be in [1, E = 72], got 0");
  k = 73;
  expect(TK_ERROR_INVALID_ARGUMENT, "num_topk must be in [1, E = 72], got 73");
  k = 8;
  expect(TK_ERROR_INVALID_ARGUMENT, "topk_idx has shape (64, 6); the contract is (N, K) with K = 8 (num_topk)");
  k = 6;
  idx = tensor(TK_I32, {64, 6});
  expect(TK_ERROR_INVALID_ARGUMENT, "topk_idx must be i64, got i32");
  idx = tensor(TK_I64, {63, 6});
  expect(TK_ERROR_INVALID_ARGUMENT, "topk_idx has shape (63, 6); the contract is (N, K) with N = 64 (scores dimension 0)");
  idx = tensor(TK_I64, {64, 6});
  scores = tensor(TK_BF16, {64, 72});
  expect(TK_ERROR_INVALID_ARGUMENT, "scores must be f32, got bf16");
  scores = tensor(TK_F32, {64, 72}, {80, 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "scores must be contiguous");
  scores = tensor(TK_F32, {4, 2000});
  idx = tensor(TK_I64, {4, 6});
  expect(TK_ERROR_UNSUPPORTED, "at most 1024 experts, got 2000");
  scores = tensor(TK_F32, {0, 72});
  idx = tensor(TK_I64, {0, 6});
  EXPECT_EQ(tk_topk_gate(ctx, &scores, k, &idx, nullptr), TK_SUCCESS) << tk_last_error();
}


TEST_F(MoeValidation, NormalizeWeight) {
  tk_tensor w = tensor(TK_F32, {64, 8}), den = tensor(TK_F32, {64}), out = tensor(TK_F32, {64, 8});
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_normalize_weight(ctx, &w, &den, &out, nullptr), want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  den = tensor(TK_F32, {63});
  expect(TK_ERROR_INVALID_ARGUMENT, "denominator has shape (63,); the contract is (N,) with N = 64 (topk_weights dimension 0)");
  den = tensor(TK_F32, {64});
  out = tensor(TK_F32, {64, 6});
  expect(TK_ERROR_INVALID_ARGUMENT, "normalized_weights has shape (64, 6); the contract is (N, K) with K = 8");
  out = tensor(TK_F32, {64, 8});
  w = tensor(TK_BF16, {64, 8});
  expect(TK_ERROR_INVALID_ARGUMENT, "topk_weights must be f32, got bf16");
  w = tensor(TK_F32, {64, 0}), out = tensor(TK_F32, {64, 0});
  expect(TK_ERROR_INVALID_ARGUMENT, "topk_weights needs at least one column");
  w = tensor(TK_F32, {4, 65}), den = tensor(TK_F32, {4}), out = tensor(TK_F32, {4, 65});
  expect(TK_ERROR_UNSUPPORTED, "at most 64 slots per token, got 65");
  w = tensor(TK_F32, {0, 8}), den = tensor(TK_F32, {0}), out = tensor(TK_F32, {0, 8});
  EXPECT_EQ(tk_normalize_weight(ctx, &w, &den, &out, nullptr), TK_SUCCESS) << tk_last_error();
}


TEST_F(MoeValidation, TopkSumAndTopkGroupIdx) {
  tk_tensor scores = tensor(TK_F32, {64, 8, 32}), idx = tensor(TK_I64, {64, 4});
  int32_t q = 2, kg = 4;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_topk_sum_and_topk_group_idx(ctx, &scores, q, kg, &idx, nullptr), want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  q = 3;
  expect(TK_ERROR_INVALID_ARGUMENT, "num_topk_sum must be 1 or 2, got 3");
  q = 2;
  scores = tensor(TK_F32, {64, 8, 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "num_topk_sum 2 exceeds the experts per group, 1");
  scores = tensor(TK_F32, {64, 8, 32});
  kg = 9;
  expect(TK_ERROR_INVALID_ARGUMENT, "num_topk_groups must be in [1, G = 8], got 9");
  kg = 4;
  idx = tensor(TK_I64, {64, 2});
  expect(TK_ERROR_INVALID_ARGUMENT, "group_idx has shape (64, 2); the contract is (N, Kg) with Kg = 4 (num_topk_groups)");
  idx = tensor(TK_I64, {64, 4});
  scores = tensor(TK_F32, {64, 256});
  expect(TK_ERROR_INVALID_ARGUMENT, "scores must have 3 dimensions, got 2");
  scores = tensor(TK_F32, {64, 64, 64});
  expect(TK_ERROR_UNSUPPORTED, "at most 2048 scores per token, got 4096");
  scores = tensor(TK_F32, {0, 8, 32}), idx = tensor(TK_I64, {0, 4});
  EXPECT_EQ(tk_topk_sum_and_topk_group_idx(ctx, &scores, q, kg, &idx, nullptr), TK_SUCCESS) << tk_last_error();
}


TEST_F(MoeValidation, MaskIndicesByTp) {
  tk_tensor ids = tensor(TK_I64, {64, 8}), out = tensor(TK_I64, {64, 8});
  int64_t n = 256;
  int32_t ep = 8, rank = 1, tp = 4;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_mask_indices_by_tp(ctx, &ids, n, ep, rank, tp, &out, nullptr), want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  rank = 4;
  expect(TK_ERROR_INVALID_ARGUMENT, "tp_rank must be in [0, num_tp_ranks = 4), got 4");
  rank = 1, tp = 0;
  expect(TK_ERROR_INVALID_ARGUMENT, "num_tp_ranks must be at least 1, got 0");
  tp = 4, ep = 0;
  expect(TK_ERROR_INVALID_ARGUMENT, "num_ep_ranks must be at least 1, got 0");
  ep = 8, n = 7;
  expect(TK_ERROR_INVALID_ARGUMENT, "n (experts over all EP ranks) must be at least num_ep_ranks = 8, got 7");
  n = 256;
  out = tensor(TK_I32, {64, 8});
  expect(TK_ERROR_INVALID_ARGUMENT, "masked_indices must be i64, got i32");
  out = tensor(TK_I64, {64, 9});
  expect(TK_ERROR_INVALID_ARGUMENT, "masked_indices has shape (64, 9); the contract is (N, K) with K = 8 (indices dimension 1)");
  ids = tensor(TK_I32, {64, 8}), out = tensor(TK_I32, {64, 8}), n = (int64_t)1 << 40, ep = 1;
  expect(TK_ERROR_INVALID_ARGUMENT, "overflows i32 ids");
  ids = tensor(TK_F32, {64, 8});
  expect(TK_ERROR_INVALID_ARGUMENT, "indices must be i32 or i64, got f32");
  ids = tensor(TK_I64, {0, 8}), out = tensor(TK_I64, {0, 8}), n = 256, ep = 8;
  EXPECT_EQ(tk_mask_indices_by_tp(ctx, &ids, n, ep, rank, tp, &out, nullptr), TK_SUCCESS) << tk_last_error();
}


TEST_F(MoeValidation, InplaceUniqueGroupIndices) {
  tk_tensor ids = tensor(TK_I64, {64, 8});
  int32_t groups = 8;
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(tk_inplace_unique_group_indices(ctx, &ids, groups, nullptr), want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  groups = 129;
  expect(TK_ERROR_INVALID_ARGUMENT, "num_groups must be in [1, 128], got 129");
  groups = 8;
  ids = tensor(TK_I32, {64, 8});
  expect(TK_ERROR_INVALID_ARGUMENT, "group_indices must be i64, got i32");
  ids = tensor(TK_I64, {64, 8}, {16, 1});
  expect(TK_ERROR_INVALID_ARGUMENT, "group_indices must be contiguous");
  ids = tensor(TK_I64, {4, 65});
  expect(TK_ERROR_UNSUPPORTED, "at most 64 ids per row, got 65");
  ids = tensor(TK_I64, {0, 8});
  EXPECT_EQ(tk_inplace_unique_group_indices(ctx, &ids, groups, nullptr), TK_SUCCESS) << tk_last_error();
}

} // namespace
