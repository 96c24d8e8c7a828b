// tk_engram_hash's, tk_engram_make_offsets', tk_engram_fused_weight's, tk_engram_gate_fwd's and
// tk_engram_gate_bwd's argument checks: a status and a message naming the argument, before any
// device is touched (these run without a GPU).
#include "capi_validation.h"
#include "tk/runtime/Context.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using tk::validation_test::expect;
using tk::validation_test::tensor;

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

namespace {

TEST(EngramValidation, GateForwardNamesTheArgument) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk_tensor x = tensor(TK_BF16, {10, 4, 512}), k = tensor(TK_BF16, {10, 4, 512}), v = tensor(TK_BF16, {10, 512}),
            wf = tensor(TK_F32, {4, 512}), out = tensor(TK_BF16, {10, 4, 512}), s[4];
  for (tk_tensor &t : s)
    t = tensor(TK_F32, {10, 4});
  float eps = 1e-20f, clamp = 1e-6f;
  auto call = [&](bool save) {
    return tk_engram_gate_fwd(ctx, &x, &k, &v, &wf, eps, clamp, &out, save ? &s[0] : nullptr, save ? &s[1] : nullptr,
                              save ? &s[2] : nullptr, save ? &s[3] : nullptr, nullptr);
  };
  EXPECT_EQ(tk_engram_gate_fwd(ctx, &x, &k, &v, &wf, eps, clamp, &out, &s[0], nullptr, &s[2], &s[3], nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("all null, got 3 of 4"), std::string::npos) << tk_last_error();
  v = tensor(TK_BF16, {10, 256});
  expect(call(false), TK_ERROR_INVALID_ARGUMENT, "v");
  v = tensor(TK_BF16, {10, 512}), wf = tensor(TK_BF16, {4, 512});
  expect(call(false), TK_ERROR_INVALID_ARGUMENT, "weight_fused");
  wf = tensor(TK_F32, {4, 512}), s[3] = tensor(TK_F32, {10, 3});
  expect(call(true), TK_ERROR_INVALID_ARGUMENT, "rstd_k");
  s[3] = tensor(TK_F32, {10, 4}), clamp = -1.0f;
  expect(call(true), TK_ERROR_INVALID_ARGUMENT, "clamp_value must be finite and non-negative");
  clamp = 1e-6f, eps = NAN;
  expect(call(true), TK_ERROR_INVALID_ARGUMENT, "eps must be finite");
  eps = 1e-20f, x = tensor(TK_BF16, {10, 4, 40000}), k = x, out = x, v = tensor(TK_BF16, {10, 40000}),
  wf = tensor(TK_F32, {4, 40000});
  expect(call(false), TK_ERROR_UNSUPPORTED, "H = 40000 is over the 32768 columns");
  x = tensor(TK_BF16, {0, 4, 512}), k = x, out = x, v = tensor(TK_BF16, {0, 512}), wf = tensor(TK_F32, {4, 512});
  for (tk_tensor &t : s)
    t = tensor(TK_F32, {0, 4});
  EXPECT_EQ(call(true), TK_SUCCESS) << tk_last_error(); // T = 0: nothing to write, no launch
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

// Strides the kernel's 16-byte accesses cannot take (k's rows 68 elements
// apart) are refused before anything runs, naming the tensor; out keeps its
// bytes. On the CPU path, with real buffers.
TEST(EngramValidation, GateForwardRefusesUnalignedRowsAndWritesNothing) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  const int64_t t = 2, n = 2, h = 64;
  std::vector<uint16_t> x(t * n * h, 0x3F80), k(t * n * 72, 0x3F80), v(t * h, 0x3F80), out(t * n * h, 0xBEEF);
  std::vector<float> wf(n * h, 1.0f);
  tk::checks::Placement host;
  tk_tensor tx = host.tensor(x.data(), TK_BF16, {t, n, h}),
            tk_ = host.tensor(k.data(), TK_BF16, {t, n, h}, {n * 68, 68, 1}),
            tv = host.tensor(v.data(), TK_BF16, {t, h}), tw = host.tensor(wf.data(), TK_F32, {n, h}),
            to = host.tensor(out.data(), TK_BF16, {t, n, h});
  tk_status st =
      tk_engram_gate_fwd(ctx, &tx, &tk_, &tv, &tw, 1e-20f, 1e-6f, &to, nullptr, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(st, TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("'k'"), std::string::npos) << tk_last_error();
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint16_t b) { return b == 0xBEEF; }));
  tk_ = host.tensor(k.data(), TK_BF16, {t, n, h}, {n * 72, 72, 1}); // 144-byte rows: accepted
  EXPECT_EQ(
      tk_engram_gate_fwd(ctx, &tx, &tk_, &tv, &tw, 1e-20f, 1e-6f, &to, nullptr, nullptr, nullptr, nullptr, nullptr),
      TK_SUCCESS)
      << tk_last_error();
  // Ones everywhere: s = 64 / sqrt(64) = 8, g = sigmoid(sqrt(8)) = 0.9442, out = bf16(1.9442) = 1.9453125.
  EXPECT_EQ(out[0], 0x3FF9);
  EXPECT_EQ(out.back(), 0x3FF9);
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

// More token groups of the pipelined forward (8 tokens each) than a grid's
// second dimension holds (65535): the call runs one CTA per row instead.
// Ones everywhere, as above, at H = 8: s = 8 / sqrt(8), out = bf16(1 + g).
TEST(EngramValidation, GateForwardPastTheGridRunsOneCtaPerRow) {
  for (int64_t t : {int64_t(100), int64_t(65535 * 8 + 1)}) {
    tk_context ctx = nullptr;
    ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
    const int64_t n = 1, h = 8;
    std::vector<uint16_t> x(t * n * h, 0x3F80), v(t * h, 0x3F80), out(t * n * h, 0xBEEF);
    std::vector<float> wf(n * h, 1.0f);
    tk::checks::Placement host;
    tk_tensor tx = host.tensor(x.data(), TK_BF16, {t, n, h}), tv = host.tensor(v.data(), TK_BF16, {t, h}),
              tw = host.tensor(wf.data(), TK_F32, {n, h}), to = host.tensor(out.data(), TK_BF16, {t, n, h});
    ASSERT_EQ(
        tk_engram_gate_fwd(ctx, &tx, &tx, &tv, &tw, 1e-20f, 1e-6f, &to, nullptr, nullptr, nullptr, nullptr, nullptr),
        TK_SUCCESS)
        << tk_last_error();
    EXPECT_EQ(out[0], out.back());
    EXPECT_NE(out.back(), 0xBEEF);
    const std::vector<std::string> built = ctx->cpuCache.configs();
    const std::string oneCtaPerRow = "engram_gate_fwd:H=8|stages=1";
    EXPECT_EQ(std::count(built.begin(), built.end(), oneCtaPerRow), t > 65535 * 8 ? 1 : 0) << t << " tokens";
    EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
  }
}

TEST(EngramValidation, GateBackwardNamesTheArgument) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int64_t t = 10, n = 4, h = 512, p = 132;
  tk_tensor dy, x, k, v, wf, s[4], gx, gk, gv, gp;
  auto shapes = [&] {
    dy = x = k = gx = gk = tensor(TK_BF16, {t, n, h});
    v = gv = tensor(TK_BF16, {t, h});
    wf = tensor(TK_F32, {n, h}), gp = tensor(TK_F32, {p, n, h});
    for (tk_tensor &st : s)
      st = tensor(TK_F32, {t, n});
  };
  shapes();
  float clamp = 1e-6f;
  auto call = [&] {
    return tk_engram_gate_bwd(ctx, &dy, &x, &k, &v, &wf, &s[0], &s[1], &s[2], &s[3], clamp, &gx, &gk, &gv, &gp,
                              nullptr);
  };
  dy = tensor(TK_F32, {t, n, h});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "grad_out");
  shapes(), s[1] = tensor(TK_F32, {t, 3});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "gate_score");
  shapes(), gv = tensor(TK_BF16, {t, 256});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "grad_v");
  shapes(), gk = tensor(TK_BF16, {t, n, h}, {n * h + 8, h, 1}); // written dense (spec 5.7)
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "grad_k");
  shapes(), gp = tensor(TK_F32, {p, n, 256});
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "grad_w_partial");
  shapes(), clamp = 0.0f;
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "clamp_value must be finite and positive");
  clamp = INFINITY;
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "clamp_value must be finite and positive");
  clamp = 1e-6f, p = 0, shapes();
  expect(call(), TK_ERROR_INVALID_ARGUMENT, "P >= 1");
  p = 132, h = 8200, shapes();
  expect(call(), TK_ERROR_UNSUPPORTED, "H <= 8192");
  h = 512, n = 17, shapes();
  expect(call(), TK_ERROR_UNSUPPORTED, "n <= 16");
  EXPECT_EQ(call(), TK_ERROR_UNSUPPORTED);
  EXPECT_EQ(
      tk_engram_gate_bwd(nullptr, &dy, &x, &k, &v, &wf, &s[0], &s[1], &s[2], &s[3], clamp, &gx, &gk, &gv, &gp, nullptr),
      TK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

// T = 0 writes grad_w_partial's zero rows (grad_w_reduce then adds nothing)
// and nothing else; on the CPU path, with real buffers.
TEST(EngramValidation, GateBackwardWithoutTokensZeroesThePartials) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  const int64_t n = 4, h = 64, p = 3;
  alignas(16) uint16_t none[8] = {};
  alignas(16) float noStats[8] = {};
  std::vector<float> wf(n * h, 1.0f), partial(p * n * h, -7.0f);
  tk::checks::Placement host;
  tk_tensor rows = host.tensor(none, TK_BF16, {0, n, h}), v = host.tensor(none, TK_BF16, {0, h}),
            tw = host.tensor(wf.data(), TK_F32, {n, h}), st = host.tensor(noStats, TK_F32, {0, n}),
            tp = host.tensor(partial.data(), TK_F32, {p, n, h});
  ASSERT_EQ(
      tk_engram_gate_bwd(ctx, &rows, &rows, &rows, &v, &tw, &st, &st, &st, &st, 1e-6f, &rows, &rows, &v, &tp, nullptr),
      TK_SUCCESS)
      << tk_last_error();
  EXPECT_TRUE(std::all_of(partial.begin(), partial.end(), [](float f) { return f == 0.0f; }));
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

// The backward runs two kernels; a grad_v the second cannot take (2 bytes
// off its 16-byte alignment) is refused before the first writes grad_x,
// grad_k or the partials. On the CPU path, with real buffers.
TEST(EngramValidation, GateBackwardRefusesMisalignedGradVAndWritesNothing) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  const int64_t t = 2, n = 2, h = 64, p = 2;
  std::vector<uint16_t> in(t * n * h, 0x3F80), v(t * h, 0x3F80), grads(2 * t * n * h + t * h + 8, 0xBEEF);
  std::vector<float> wf(n * h, 1.0f), stats(t * n, 1.0f), partial(p * n * h, -7.0f);
  tk::checks::Placement host;
  tk_tensor x = host.tensor(in.data(), TK_BF16, {t, n, h}), tv = host.tensor(v.data(), TK_BF16, {t, h}),
            tw = host.tensor(wf.data(), TK_F32, {n, h}), st = host.tensor(stats.data(), TK_F32, {t, n}),
            gx = host.tensor(grads.data(), TK_BF16, {t, n, h}),
            gk = host.tensor(grads.data() + t * n * h, TK_BF16, {t, n, h}),
            gv = host.tensor(grads.data() + 2 * t * n * h + 1, TK_BF16, {t, h}),
            gp = host.tensor(partial.data(), TK_F32, {p, n, h});
  expect(tk_engram_gate_bwd(ctx, &x, &x, &x, &tv, &tw, &st, &st, &st, &st, 1e-6f, &gx, &gk, &gv, &gp, nullptr),
         TK_ERROR_INVALID_ARGUMENT, "'grad_v' pointer is not 16-byte aligned");
  EXPECT_TRUE(std::all_of(grads.begin(), grads.end(), [](uint16_t b) { return b == 0xBEEF; }));
  EXPECT_TRUE(std::all_of(partial.begin(), partial.end(), [](float f) { return f == -7.0f; }));
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

} // namespace
