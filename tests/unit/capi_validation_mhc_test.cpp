// The mHC stream operators' argument checks (tk_expand_to_mhc_*, tk_mhc_pre_apply_mix_*,
// tk_mhc_post_*): a status and a message naming the argument, before any device is touched
// (these run without a GPU).
#include "capi_validation.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cmath>
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

TEST_F(MhcValidation, SplitMixesNamesTheArgument) {
  tk_tensor u = tensor(TK_F32, {100, 24}), s = tensor(TK_F32, {3}), b = tensor(TK_F32, {24});
  tk_tensor pre = tensor(TK_F32, {100, 4}), post = tensor(TK_F32, {100, 4}), comb = tensor(TK_F32, {100, 4, 4});
  auto fwd = [&](float p, float eps) {
    return tk_mhc_pre_split_mixes_fwd(ctx, &u, &s, &b, p, eps, &pre, &post, &comb, nullptr);
  };
  u = tensor(TK_F32, {100, 20});
  expect(fwd(2.0f, 1e-2f), TK_ERROR_INVALID_ARGUMENT, "input_mixes has 20 columns; n = 4 streams need 2n + n^2 = 24");
  u = tensor(TK_F32, {100, 24}, {32, 2}); // the columns must be contiguous (rows may be strided)
  expect(fwd(2.0f, 1e-2f), TK_ERROR_INVALID_ARGUMENT, "input_mixes");
  u = tensor(TK_BF16, {100, 24});
  expect(fwd(2.0f, 1e-2f), TK_ERROR_INVALID_ARGUMENT, "input_mixes");
  u = tensor(TK_F32, {100, 24}), s = tensor(TK_F32, {4});
  expect(fwd(2.0f, 1e-2f), TK_ERROR_INVALID_ARGUMENT, "scale");
  s = tensor(TK_F32, {3}), b = tensor(TK_F32, {23});
  expect(fwd(2.0f, 1e-2f), TK_ERROR_INVALID_ARGUMENT, "base");
  b = tensor(TK_F32, {24}), comb = tensor(TK_F32, {100, 4, 3});
  expect(fwd(2.0f, 1e-2f), TK_ERROR_INVALID_ARGUMENT, "comb");
  comb = tensor(TK_F32, {100, 4, 4});
  expect(fwd(2.0f, NAN), TK_ERROR_INVALID_ARGUMENT, "pre_eps must be finite");
  expect(fwd(INFINITY, 1e-2f), TK_ERROR_INVALID_ARGUMENT, "post_mult_value must be finite");
  u = tensor(TK_F32, {100, 99}), b = tensor(TK_F32, {99}), pre = tensor(TK_F32, {100, 9}),
  post = tensor(TK_F32, {100, 9}), comb = tensor(TK_F32, {100, 9, 9});
  expect(fwd(2.0f, 1e-2f), TK_ERROR_UNSUPPORTED, "n = 9 streams; 1 to 8");
  // The backward divides by post_mult_value.
  u = tensor(TK_F32, {100, 24}), b = tensor(TK_F32, {24});
  tk_tensor gpre = tensor(TK_F32, {100, 4}), gpost = tensor(TK_F32, {100, 4}), gcomb = tensor(TK_F32, {100, 4, 4});
  tk_tensor gu = tensor(TK_F32, {100, 24}), gs = tensor(TK_F32, {3}), gb = tensor(TK_F32, {24});
  post = tensor(TK_F32, {100, 4});
  auto bwd = [&](float p) {
    return tk_mhc_pre_split_mixes_bwd(ctx, &gpre, &gpost, &gcomb, &u, &post, &s, &b, p, &gu, &gs, &gb, nullptr);
  };
  expect(bwd(0.0f), TK_ERROR_INVALID_ARGUMENT, "post_mult_value must be finite and non-zero");
  gu = tensor(TK_F32, {100, 24}, {32, 1}); // grad_input is written contiguous
  expect(bwd(2.0f), TK_ERROR_INVALID_ARGUMENT, "grad_input");
  gu = tensor(TK_F32, {100, 24}), gb = tensor(TK_F32, {4});
  expect(bwd(2.0f), TK_ERROR_INVALID_ARGUMENT, "grad_base");
  gb = tensor(TK_F32, {24}), gcomb = tensor(TK_F32, {99, 4, 4});
  expect(bwd(2.0f), TK_ERROR_INVALID_ARGUMENT, "grad_comb");
}

TEST_F(MhcValidation, HeadComputeMixNamesTheArgument) {
  tk_tensor u = tensor(TK_F32, {100, 4}), s = tensor(TK_F32, {1}), b = tensor(TK_F32, {4}),
            out = tensor(TK_F32, {100, 4});
  auto fwd = [&] { return tk_mhc_head_compute_mix_fwd(ctx, &u, &s, &b, 1e-2f, &out, nullptr); };
  u = tensor(TK_F32, {100, 5});
  expect(fwd(), TK_ERROR_INVALID_ARGUMENT, "input_mix has 5 columns; n = 4 streams need n = 4");
  u = tensor(TK_F32, {100, 4}), s = tensor(TK_F32, {3});
  expect(fwd(), TK_ERROR_INVALID_ARGUMENT, "scale");
  s = tensor(TK_F32, {1});
  EXPECT_EQ(tk_mhc_head_compute_mix_fwd(ctx, &u, &s, &b, NAN, &out, nullptr), TK_ERROR_INVALID_ARGUMENT);
  tk_tensor g = tensor(TK_F32, {100, 4}), gu = tensor(TK_F32, {100, 4}), gs = tensor(TK_F32, {1}),
            gb = tensor(TK_F32, {5});
  expect(tk_mhc_head_compute_mix_bwd(ctx, &g, &u, &s, &b, &gu, &gs, &gb, nullptr), TK_ERROR_INVALID_ARGUMENT,
         "grad_base");
  u = tensor(TK_F32, {0, 4}), out = tensor(TK_F32, {0, 4});
  EXPECT_EQ(fwd(), TK_SUCCESS) << tk_last_error(); // T = 0: nothing to write, no launch
}

TEST_F(MhcValidation, NormFnNamesTheArgument) {
  tk_tensor res = tensor(TK_BF16, {100, 4, 256}), fn = tensor(TK_F32, {24, 1024}), mix = tensor(TK_F32, {100, 24});
  auto fwd = [&](const tk_tensor *w, float eps) {
    return tk_mhc_pre_norm_fn_fwd(ctx, &res, &fn, w, eps, &mix, nullptr, nullptr, nullptr);
  };
  fn = tensor(TK_F32, {24, 1000});
  expect(fwd(nullptr, 1e-6f), TK_ERROR_INVALID_ARGUMENT, "fn has 1000 columns; residual's n H is 1024");
  fn = tensor(TK_F32, {33, 1024}), mix = tensor(TK_F32, {100, 33});
  expect(fwd(nullptr, 1e-6f), TK_ERROR_UNSUPPORTED, "fn has 33 rows; 1 to 32");
  fn = tensor(TK_F32, {24, 1024}), mix = tensor(TK_F32, {100, 24});
  tk_tensor w = tensor(TK_F32, {1000});
  expect(fwd(&w, 1e-6f), TK_ERROR_INVALID_ARGUMENT, "norm_weight");
  expect(fwd(nullptr, -1.0f), TK_ERROR_INVALID_ARGUMENT, "mhc_norm_eps must be finite");
  res = tensor(TK_BF16, {100, 4, 255}), fn = tensor(TK_F32, {24, 1020});
  expect(fwd(nullptr, 1e-6f), TK_ERROR_UNSUPPORTED, "not a positive multiple of 8");
  res = tensor(TK_BF16, {100, 4, 0}), fn = tensor(TK_F32, {24, 0}); // H = 0: no product to take
  expect(fwd(nullptr, 1e-6f), TK_ERROR_UNSUPPORTED, "not a positive multiple of 8");
  res = tensor(TK_BF16, {100, 4, 256}), fn = tensor(TK_F32, {24, 1024});
  expect(fwd(nullptr, 0.0f), TK_ERROR_INVALID_ARGUMENT, "finite and positive");
  res = tensor(TK_F32, {100, 4, 256});
  expect(fwd(nullptr, 1e-6f), TK_ERROR_INVALID_ARGUMENT, "residual");
  res = tensor(TK_BF16, {100, 4, 256}), fn = tensor(TK_F32, {24, 1024});
  tk_tensor gmix = tensor(TK_F32, {100, 24}), mul = tensor(TK_F32, {100, 24}), ss = tensor(TK_F32, {100});
  tk_tensor gres = tensor(TK_BF16, {100, 4, 256}), gfn = tensor(TK_F32, {24, 1024}), gw = tensor(TK_F32, {1024});
  w = tensor(TK_F32, {1024});
  expect(tk_mhc_pre_norm_fn_bwd(ctx, &gmix, &res, &fn, &w, &mul, &ss, 1e-6f, 0, &gres, &gfn, nullptr, nullptr),
         TK_ERROR_INVALID_ARGUMENT, "grad_norm_weight must be given exactly when norm_weight is");
  expect(tk_mhc_pre_norm_fn_bwd(ctx, &gmix, &res, &fn, nullptr, &mul, &ss, 1e-6f, 2, &gres, &gfn, nullptr, nullptr),
         TK_ERROR_INVALID_ARGUMENT, "accumulate must be 0 or 1");
  ss = tensor(TK_F32, {99});
  expect(tk_mhc_pre_norm_fn_bwd(ctx, &gmix, &res, &fn, nullptr, &mul, &ss, 1e-6f, 0, &gres, &gfn, nullptr, nullptr),
         TK_ERROR_INVALID_ARGUMENT, "ss");
}

} // namespace
