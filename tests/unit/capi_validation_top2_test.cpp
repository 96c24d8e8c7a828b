// tk_top2_sum_gate's argument checks: each fails with a status and a message
// naming the argument, before touching any device (these run without a GPU).
#include "checks/gpu_session.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <string>

namespace {

alignas(16) char fake[16];

tk_tensor tensor(tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  return tk::checks::deviceTensor(fake, dtype, std::move(shape), std::move(strides));
}

TEST(Top2SumGateValidation, NamesTheArgument) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk_tensor logits = tensor(TK_F32, {64, 72}), bias = tensor(TK_F32, {72}), ids = tensor(TK_I64, {64, 6}),
            weights = tensor(TK_F32, {64, 6}), unmapped = tensor(TK_I64, {64, 6}), fix = tensor(TK_U8, {64});
  int32_t k = 6, kg = 0, g = 0, shared = 0;
  tk_scoring scoring = TK_SCORING_SIGMOID;
  const tk_tensor *fixPtr = nullptr;
  tk_tensor *unmappedPtr = nullptr;
  auto call = [&] {
    return tk_top2_sum_gate(ctx, &logits, &bias, k, kg, g, shared, 2, 1.5f, 0, 4, 0, 2, scoring, nullptr, fixPtr,
                            nullptr, nullptr, unmappedPtr, &ids, &weights, nullptr);
  };
  auto expect = [&](tk_status want, const std::string &msg) {
    EXPECT_EQ(call(), want) << tk_last_error();
    EXPECT_NE(std::string(tk_last_error()).find(msg), std::string::npos) << tk_last_error();
  };
  scoring = TK_SCORING_IDENTITY;
  expect(TK_ERROR_INVALID_ARGUMENT, "identity is rejected");
  scoring = TK_SCORING_SOFTMAX, k = 73;
  expect(TK_ERROR_INVALID_ARGUMENT, "needs 1 <= K <= E");
  k = 6, g = 8;
  expect(TK_ERROR_INVALID_ARGUMENT, "both 0 or both positive");
  g = 8, kg = 1, logits = tensor(TK_F32, {64, 16}), bias = tensor(TK_F32, {16}); // K = 6 > 1 group of 2
  expect(TK_ERROR_INVALID_ARGUMENT, "K <= Kg x (E / G)");
  g = 0, kg = 0, logits = tensor(TK_F32, {64, 72}), bias = tensor(TK_F32, {72}), shared = 1;
  expect(TK_ERROR_INVALID_ARGUMENT, "physical map"); // shared slots name E + j: only through the map
  shared = 0, fixPtr = &fix;
  expect(TK_ERROR_INVALID_ARGUMENT, "fix_routing_mask needs unmapped_topk_idx");
  unmappedPtr = &unmapped, weights = tensor(TK_F32, {64, 7});
  expect(TK_ERROR_INVALID_ARGUMENT, "topk_weights");
  weights = tensor(TK_F32, {64, 6}), bias = tensor(TK_F32, {71});
  expect(TK_ERROR_INVALID_ARGUMENT, "bias");
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

} // namespace
