// The mHC stream operators' argument checks (tk_expand_to_mhc_*, tk_mhc_pre_apply_mix_*,
// tk_mhc_post_*): a status and a message naming the argument, before any device is touched
// (these run without a GPU).
#include "capi_validation.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using tk::validation_test::expect;
using tk::validation_test::tensor;

class MhcValidation : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS); }
  void TearDown() override { EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS); }
  tk_context ctx = nullptr;
};

TEST_F(MhcValidation, ExpandNamesTheArgument) {
  tk_tensor hidden = tensor(TK_BF16, {100, 256}), out = tensor(TK_BF16, {100, 4, 256});
  auto fwd = [&] { return tk_expand_to_mhc_fwd(ctx, &hidden, &out, nullptr); };
  out = tensor(TK_BF16, {100, 4, 255});
  expect(fwd(), TK_ERROR_INVALID_ARGUMENT, "out");
  out = tensor(TK_F32, {100, 4, 256});
  expect(fwd(), TK_ERROR_INVALID_ARGUMENT, "out");
  out = tensor(TK_BF16, {100, 9, 256});
  expect(fwd(), TK_ERROR_UNSUPPORTED, "n = 9 streams");
  out = tensor(TK_BF16, {100, 0, 256});
  expect(fwd(), TK_ERROR_UNSUPPORTED, "n = 0 streams");
  hidden = tensor(TK_BF16, {0, 256}), out = tensor(TK_BF16, {0, 4, 256});
  EXPECT_EQ(fwd(), TK_SUCCESS) << tk_last_error(); // T = 0: nothing to write, no launch
  tk_tensor dout = tensor(TK_BF16, {100, 4, 256}), dh = tensor(TK_BF16, {100, 128});
  expect(tk_expand_to_mhc_bwd(ctx, &dout, &dh, nullptr), TK_ERROR_INVALID_ARGUMENT, "grad_hidden");
  expect(tk_expand_to_mhc_bwd(nullptr, &dout, &dh, nullptr), TK_ERROR_INVALID_ARGUMENT, "ctx is null");
}

TEST_F(MhcValidation, ApplyMixNamesTheArgument) {
  tk_tensor x = tensor(TK_BF16, {100, 4, 256}), mix = tensor(TK_F32, {100, 4}), out = tensor(TK_BF16, {100, 256});
  mix = tensor(TK_F32, {100, 4, 1}); // the reference's [..., n, 1] is passed as (T, n)
  expect(tk_mhc_pre_apply_mix_fwd(ctx, &x, &mix, &out, nullptr), TK_ERROR_INVALID_ARGUMENT, "mix");
  mix = tensor(TK_F32, {100, 3});
  expect(tk_mhc_pre_apply_mix_fwd(ctx, &x, &mix, &out, nullptr), TK_ERROR_INVALID_ARGUMENT, "mix");
  mix = tensor(TK_F32, {100, 4});
  tk_tensor dout = tensor(TK_BF16, {100, 256}), dx = tensor(TK_BF16, {100, 4, 256}), dmix = tensor(TK_F32, {100, 4});
  expect(tk_mhc_pre_apply_mix_bwd(ctx, &dout, &x, &mix, 2, &dx, &dmix, nullptr), TK_ERROR_INVALID_ARGUMENT,
         "accumulate must be 0 or 1");
  dmix = tensor(TK_BF16, {100, 4});
  expect(tk_mhc_pre_apply_mix_bwd(ctx, &dout, &x, &mix, 1, &dx, &dmix, nullptr), TK_ERROR_INVALID_ARGUMENT, "grad_mix");
  dmix = tensor(TK_F32, {100, 4});
  expect(tk_mhc_pre_apply_mix_bwd(ctx, &dout, &x, &mix, 1, nullptr, &dmix, nullptr), TK_ERROR_INVALID_ARGUMENT,
         "grad_x");
}

TEST_F(MhcValidation, PostNamesTheArgument) {
  tk_tensor x = tensor(TK_BF16, {100, 256}), res = tensor(TK_BF16, {100, 4, 256}), post = tensor(TK_F32, {100, 4}),
            comb = tensor(TK_F32, {100, 4, 3}), out = tensor(TK_BF16, {100, 4, 256});
  expect(tk_mhc_post_fwd(ctx, &x, &res, &post, &comb, &out, nullptr), TK_ERROR_INVALID_ARGUMENT, "comb_mix");
  comb = tensor(TK_F32, {100, 4, 4}), res = tensor(TK_BF16, {101, 4, 256});
  expect(tk_mhc_post_fwd(ctx, &x, &res, &post, &comb, &out, nullptr), TK_ERROR_INVALID_ARGUMENT, "residual");
  res = tensor(TK_BF16, {100, 4, 256});
  tk_tensor dout = tensor(TK_BF16, {100, 4, 256}), dx = tensor(TK_BF16, {100, 256}),
            dres = tensor(TK_BF16, {100, 4, 256}), dpost = tensor(TK_F32, {100, 4}),
            dcomb = tensor(TK_F32, {100, 4, 4});
  auto bwd = [&] { return tk_mhc_post_bwd(ctx, &dout, &x, &res, &post, &comb, &dx, &dres, &dpost, &dcomb, nullptr); };
  dcomb = tensor(TK_F32, {100, 16});
  expect(bwd(), TK_ERROR_INVALID_ARGUMENT, "grad_comb");
  dcomb = tensor(TK_F32, {100, 4, 4}), dpost = tensor(TK_F32, {4, 100});
  expect(bwd(), TK_ERROR_INVALID_ARGUMENT, "grad_post");
  dpost = tensor(TK_F32, {100, 4});
  tk_tensor strided = res;
  strided.strides[0] = 4 * 512; // padded rows: the kernels take contiguous streams
  expect(tk_mhc_post_bwd(ctx, &dout, &x, &strided, &post, &comb, &dx, &dres, &dpost, &dcomb, nullptr),
         TK_ERROR_INVALID_ARGUMENT, "residual");
}

TEST_F(MhcValidation, SinkhornNamesTheArgument) {
  tk_tensor x = tensor(TK_F32, {100, 4, 4}), out = tensor(TK_F32, {100, 4, 4});
  expect(tk_sinkhorn_normalize_fwd(ctx, &x, 0, 1e-6f, &out, nullptr), TK_ERROR_INVALID_ARGUMENT,
         "repeat must be at least 1");
  expect(tk_sinkhorn_normalize_fwd(ctx, &x, 10, -1.0f, &out, nullptr), TK_ERROR_INVALID_ARGUMENT, "eps must be");
  expect(tk_sinkhorn_normalize_fwd(ctx, &x, 33, 1e-6f, &out, nullptr), TK_ERROR_UNSUPPORTED, "repeat up to 32");
  x = tensor(TK_F32, {100, 0, 0}), out = tensor(TK_F32, {100, 0, 0});
  expect(tk_sinkhorn_normalize_fwd(ctx, &x, 10, 1e-6f, &out, nullptr), TK_ERROR_UNSUPPORTED, "n from 1 to 16");
  x = tensor(TK_F32, {100, 4, 4}), out = tensor(TK_F32, {100, 4, 4});
  x = tensor(TK_F32, {100, 4, 3});
  expect(tk_sinkhorn_normalize_fwd(ctx, &x, 10, 1e-6f, &out, nullptr), TK_ERROR_INVALID_ARGUMENT, "x");
  x = tensor(TK_BF16, {100, 4, 4});
  expect(tk_sinkhorn_normalize_fwd(ctx, &x, 10, 1e-6f, &out, nullptr), TK_ERROR_INVALID_ARGUMENT, "x");
  x = tensor(TK_F32, {100, 4, 4});
  tk_tensor g = tensor(TK_F32, {100, 4, 4}), gx = tensor(TK_F32, {99, 4, 4});
  expect(tk_sinkhorn_normalize_bwd(ctx, &g, &x, 10, 1e-6f, &gx, nullptr), TK_ERROR_INVALID_ARGUMENT, "grad_x");
  x = tensor(TK_F32, {0, 4, 4}), out = tensor(TK_F32, {0, 4, 4});
  EXPECT_EQ(tk_sinkhorn_normalize_fwd(ctx, &x, 10, 1e-6f, &out, nullptr), TK_SUCCESS) << tk_last_error();
}

} // namespace
