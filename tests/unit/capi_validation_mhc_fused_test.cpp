// The fused mHC operators' argument checks (tk_mhc_pre_big_fuse, tk_mhc_multilayer_recompute): a status
// and a message naming the argument, before any device is touched (these run without a GPU).
#include "capi_validation.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using tk::validation_test::expect;
using tk::validation_test::tensor;

class MhcFusedValidation : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS); }
  void TearDown() override { EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS); }
  tk_context ctx = nullptr;
};

TEST_F(MhcFusedValidation, BigFuseNamesTheArgument) {
  tk_tensor res = tensor(TK_BF16, {100, 4, 256}), fn = tensor(TK_F32, {24, 1024}), scale = tensor(TK_F32, {3}),
            base = tensor(TK_F32, {24}), post = tensor(TK_F32, {100, 4}), comb = tensor(TK_F32, {100, 4, 4}),
            in = tensor(TK_BF16, {100, 256});
  auto call = [&](float rmsEps, float sinkhornEps, int32_t repeat) {
    return tk_mhc_pre_big_fuse(ctx, &res, &fn, &scale, &base, rmsEps, 1e-6f, sinkhornEps, 1.0f, repeat, &post, &comb,
                               &in, nullptr);
  };
  expect(call(1e-6f, 1e-6f, 0), TK_ERROR_INVALID_ARGUMENT, "sinkhorn_repeat must be at least 1");
  expect(call(1e-6f, 1e-6f, 33), TK_ERROR_UNSUPPORTED, "repeat up to 32");
  expect(call(0.0f, 1e-6f, 10), TK_ERROR_INVALID_ARGUMENT, "mhc_norm_eps must be finite and positive");
  expect(call(1e-6f, -1.0f, 10), TK_ERROR_INVALID_ARGUMENT, "sinkhorn_eps");
  expect(call(1e-6f, NAN, 10), TK_ERROR_INVALID_ARGUMENT, "sinkhorn_eps");
  scale = tensor(TK_F32, {2});
  expect(call(1e-6f, 1e-6f, 10), TK_ERROR_INVALID_ARGUMENT, "scale");
  scale = tensor(TK_F32, {3}), base = tensor(TK_F32, {23});
  expect(call(1e-6f, 1e-6f, 10), TK_ERROR_INVALID_ARGUMENT, "base");
  base = tensor(TK_F32, {24}), fn = tensor(TK_F32, {24, 1000});
  expect(call(1e-6f, 1e-6f, 10), TK_ERROR_INVALID_ARGUMENT, "fn has 1000 columns; residual's n H is 1024");
  fn = tensor(TK_F32, {25, 1024}), base = tensor(TK_F32, {25});
  expect(call(1e-6f, 1e-6f, 10), TK_ERROR_INVALID_ARGUMENT, "need 2n + n^2 = 24");
  // n = 5: 35 logits, past the product's 32 columns.
  res = tensor(TK_BF16, {100, 5, 256}), fn = tensor(TK_F32, {35, 1280}), base = tensor(TK_F32, {35}),
  post = tensor(TK_F32, {100, 5}), comb = tensor(TK_F32, {100, 5, 5});
  expect(call(1e-6f, 1e-6f, 10), TK_ERROR_UNSUPPORTED, "fn has 35 rows");
  res = tensor(TK_BF16, {100, 4, 256}), fn = tensor(TK_F32, {24, 1024}), base = tensor(TK_F32, {24}),
  post = tensor(TK_F32, {100, 4}), comb = tensor(TK_F32, {100, 4, 3});
  expect(call(1e-6f, 1e-6f, 10), TK_ERROR_INVALID_ARGUMENT, "comb_mix");
  comb = tensor(TK_F32, {100, 4, 4}), in = tensor(TK_BF16, {100, 255});
  expect(call(1e-6f, 1e-6f, 10), TK_ERROR_INVALID_ARGUMENT, "layer_input");
  res = tensor(TK_BF16, {0, 4, 256}), post = tensor(TK_F32, {0, 4}), comb = tensor(TK_F32, {0, 4, 4}),
  in = tensor(TK_BF16, {0, 256});
  EXPECT_EQ(call(1e-6f, 1e-6f, 10), TK_SUCCESS) << tk_last_error(); // T = 0: nothing to write, no launch
}

TEST_F(MhcFusedValidation, MultilayerNamesTheArgumentAndTheListElement) {
  const int64_t t = 64, n = 4, h = 256;
  tk_tensor initial = tensor(TK_BF16, {t, n, h});
  std::vector<tk_tensor> pre(3, tensor(TK_F32, {t, n})), y(3, tensor(TK_BF16, {t, h})), post(3, tensor(TK_F32, {t, n})),
      comb(3, tensor(TK_F32, {t, n, n})), in(3, tensor(TK_BF16, {t, h})), res(3, tensor(TK_BF16, {t, n, h}));
  auto call = [&](int32_t layers, int32_t posts) {
    return tk_mhc_multilayer_recompute(ctx, &initial, layers, pre.data(), posts, y.data(), post.data(), comb.data(),
                                       in.data(), res.data(), nullptr);
  };
  expect(call(0, 0), TK_ERROR_INVALID_ARGUMENT, "num_layers must be at least 1");
  expect(call(3, 1), TK_ERROR_INVALID_ARGUMENT, "num_post_layers must be num_layers or num_layers - 1");
  expect(call(2, 3), TK_ERROR_INVALID_ARGUMENT, "num_post_layers must be num_layers or num_layers - 1");
  expect(tk_mhc_multilayer_recompute(ctx, &initial, 2, pre.data(), 2, nullptr, post.data(), comb.data(), in.data(),
                                     res.data(), nullptr),
         TK_ERROR_INVALID_ARGUMENT, "is null");
  comb[2] = tensor(TK_F32, {t, n, n - 1});
  expect(call(3, 3), TK_ERROR_INVALID_ARGUMENT, "comb_mix[2]");
  comb[2] = tensor(TK_F32, {t, n, n}), pre[1] = tensor(TK_F32, {t + 1, n});
  expect(call(3, 2), TK_ERROR_INVALID_ARGUMENT, "pre_mix[1]");
  pre[1] = tensor(TK_F32, {t, n}), res[0] = tensor(TK_F32, {t, n, h});
  expect(call(3, 2), TK_ERROR_INVALID_ARGUMENT, "residual[0]");
  res[0] = tensor(TK_BF16, {t, n, h}), y[1] = tensor(TK_BF16, {t, h}, {2 * h, 1});
  expect(call(3, 2), TK_ERROR_INVALID_ARGUMENT, "layer_output[1]");
  y[1] = tensor(TK_BF16, {t, h});
  // n = 9 everywhere: past the 8 streams the kernels unroll.
  initial = tensor(TK_BF16, {t, 9, h});
  for (int l = 0; l < 3; ++l)
    pre[l] = post[l] = tensor(TK_F32, {t, 9}), comb[l] = tensor(TK_F32, {t, 9, 9}), res[l] = tensor(TK_BF16, {t, 9, h});
  expect(call(3, 3), TK_ERROR_UNSUPPORTED, "n = 9 streams");
}

} // namespace
