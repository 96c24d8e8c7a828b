// tk_engram_hash's, tk_engram_make_offsets' and tk_engram_fused_weight's
// argument checks: a status and a message naming the argument, before any
// device is touched (these run without a GPU).
#include "checks/gpu_session.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

alignas(16) char fake[16];

tk_tensor tensor(tk_dtype dtype, std::vector<int64_t> shape) {
  return tk::checks::deviceTensor(fake, dtype, std::move(shape));
}

void expect(tk_status got, tk_status want, const std::string &msg) {
  EXPECT_EQ(got, want) << tk_last_error();
  EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
}

TEST(EngramValidation, HashNamesTheArgument) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk_tensor ids = tensor(TK_I32, {100, 3}), mult = tensor(TK_I64, {2, 3}), vocab = tensor(TK_I32, {2, 2, 8}),
            offsets = tensor(TK_I32, {2, 16}), out = tensor(TK_I32, {2, 100, 16});
  auto call = [&] { return tk_engram_hash(ctx, &ids, &mult, &vocab, &offsets, &out, nullptr); };
  ids = tensor(TK_I32, {100, 1}), mult = tensor(TK_I64, {2, 1});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "at least 2");
  ids = tensor(TK_I32, {100, 3}), mult = tensor(TK_I32, {2, 3});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "multipliers");
  mult = tensor(TK_I64, {2, 3}), vocab = tensor(TK_I32, {2, 3, 8});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "vocab_sizes");
  vocab = tensor(TK_I32, {2, 2, 8}), offsets = tensor(TK_I32, {2, 15});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "offsets");
  offsets = tensor(TK_I32, {2, 16}), out = tensor(TK_I32, {100, 16});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "out");
  ids = tensor(TK_I32, {10, 9}), mult = tensor(TK_I64, {2, 9}), vocab = tensor(TK_I32, {2, 8, 8}),
  offsets = tensor(TK_I32, {2, 64}), out = tensor(TK_I32, {2, 10, 64});
  expect(call(), TK_ERROR_UNSUPPORTED, "at most N = 8");
  ids = tensor(TK_I32, {0, 3}), mult = tensor(TK_I64, {2, 3}), vocab = tensor(TK_I32, {2, 2, 8}),
  offsets = tensor(TK_I32, {2, 16}), out = tensor(TK_I32, {2, 0, 16});
  EXPECT_EQ(call(), TK_SUCCESS) << tk_last_error(); // T = 0: an empty output, no launch
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

TEST(EngramValidation, MakeOffsetsIsAnExclusiveSumPerLayer) {
  const std::vector<int32_t> sizes = {3, 5, 7, 11, 2, 4, 6, 8};
  std::vector<int32_t> offsets(8, -1);
  ASSERT_EQ(tk_engram_make_offsets(sizes.data(), 2, 2, 2, offsets.data()), TK_SUCCESS) << tk_last_error();
  EXPECT_EQ(offsets, (std::vector<int32_t>{0, 3, 8, 15, 0, 2, 6, 12})); // restarts per layer
  std::vector<int32_t> bad = sizes;
  bad[5] = 0;
  std::fill(offsets.begin(), offsets.end(), -1);
  expect(tk_engram_make_offsets(bad.data(), 2, 2, 2, offsets.data()), TK_ERROR_INVALID_ARGUMENT,
         "vocab_sizes[5] = 0 is not positive");
  EXPECT_EQ(offsets[0], -1); // unchanged
  const std::vector<int32_t> huge = {2000000000, 2000000000};
  expect(tk_engram_make_offsets(huge.data(), 1, 1, 2, offsets.data()), TK_ERROR_INVALID_ARGUMENT, "exceed 2^31 - 1");
  expect(tk_engram_make_offsets(nullptr, 1, 1, 2, offsets.data()), TK_ERROR_INVALID_ARGUMENT, "needs vocab_sizes");
}

TEST(EngramValidation, FusedWeightNamesTheArgument) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk_tensor wh = tensor(TK_BF16, {4, 2048}), we = tensor(TK_F32, {4, 2048}), wf = tensor(TK_F32, {4, 2048});
  expect(tk_engram_fused_weight(ctx, &wh, &we, &wf, nullptr), TK_ERROR_INVALID_ARGUMENT, "weight_embed");
  we = tensor(TK_BF16, {4, 2048}), wf = tensor(TK_BF16, {4, 2048});
  expect(tk_engram_fused_weight(ctx, &wh, &we, &wf, nullptr), TK_ERROR_INVALID_ARGUMENT, "weight_fused");
  wf = tensor(TK_F32, {4, 2047});
  expect(tk_engram_fused_weight(ctx, &wh, &we, &wf, nullptr), TK_ERROR_INVALID_ARGUMENT, "weight_fused");
  EXPECT_EQ(tk_engram_fused_weight(nullptr, &wh, &we, &wf, nullptr), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

} // namespace
