// An output may not share memory with another tensor of its call
// (runtime/include/tk/runtime/CallTensors.h): refused with both names before
// any kernel runs, after the entry point's own checks; an in/out parameter
// is one tensor; views that interleave (columns of one buffer) are not refused.
#include "checks/gpu_session.h"
#include "tk/runtime/CallTensors.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using tk::runtime::NamedTensor;
using tk::runtime::outputsOverlapNothing;

tk_tensor host(void *data, tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  return tk::checks::Placement{}.tensor(data, dtype, std::move(shape), std::move(strides));
}

struct CallOverlap : ::testing::Test {
  tk_context ctx = nullptr;
  void SetUp() override { ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS); }
  void TearDown() override { tk_context_destroy(ctx); }
};

TEST_F(CallOverlap, AnOutputOnItsInputIsRefusedAndNothingRuns) {
  std::vector<float> a(64 * 64);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = (float)i;
  const std::vector<float> before = a;
  tk_tensor x = host(a.data(), TK_F32, {64, 64}), out = host(a.data(), TK_F32, {64, 64});
  EXPECT_EQ(tk_transpose(ctx, &x, &out, nullptr), TK_ERROR_INVALID_ARGUMENT);
  const std::string e = tk_last_error();
  EXPECT_NE(e.find("tk_transpose: output out"), std::string::npos) << e;
  EXPECT_NE(e.find("overlaps input x"), std::string::npos) << e;
  EXPECT_EQ(a, before) << "the transpose ran in place";
  // Half a row apart: still sharing elements.
  tk_tensor shifted = host(a.data() + 32, TK_F32, {63, 64});
  tk_tensor xs = host(a.data(), TK_F32, {64, 63});
  EXPECT_EQ(tk_transpose(ctx, &xs, &shifted, nullptr), TK_ERROR_INVALID_ARGUMENT);
  // Separate buffers run.
  std::vector<float> b(64 * 64);
  tk_tensor sep = host(b.data(), TK_F32, {64, 64});
  ASSERT_EQ(tk_transpose(ctx, &x, &sep, nullptr), TK_SUCCESS) << tk_last_error();
  EXPECT_EQ(b[1], a[64]);
}

TEST_F(CallOverlap, TwoOutputsOnOneBufferAreRefused) {
  std::vector<uint16_t> x(4 * 256, 0x3f80); // bf16 1.0
  std::vector<unsigned char> shared(4 * 256 + 64);
  tk_tensor xt = host(x.data(), TK_BF16, {4, 256}), out = host(shared.data(), TK_F8_E4M3, {4, 256}),
            sf = host(shared.data() + 512, TK_F32, {4, 2});
  EXPECT_EQ(tk_per_token_cast(ctx, &xt, nullptr, nullptr, TK_FORMAT_E4M3, 128, 0, &out, &sf, nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("overlaps output out_sf"), std::string::npos) << tk_last_error();
}

TEST_F(CallOverlap, TheEntryPointsOwnChecksComeFirst) {
  std::vector<float> a(64 * 64);
  tk_tensor x = host(a.data(), TK_F32, {64, 64}), out = host(a.data(), TK_F32, {32, 64});
  EXPECT_EQ(tk_transpose(ctx, &x, &out, nullptr), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tk_last_error()).find("overlaps"), std::string::npos) << tk_last_error();
}

TEST_F(CallOverlap, AnInOutParameterIsOneTensor) {
  std::vector<int64_t> ids = {0, 1, 1, 2, 2, 2, 3, 0};
  tk_tensor t = host(ids.data(), TK_I64, {2, 4});
  ASSERT_EQ(tk_inplace_unique_group_indices(ctx, &t, 4, nullptr), TK_SUCCESS) << tk_last_error();
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 1, -1, 2, 2, -1, 3, 0}));
}

// Lists of tensors (a segment's layers) are checked element by element, all of them before the first launch:
// an overlap in the second launch's layers writes nothing in the first's.
TEST_F(CallOverlap, EveryElementOfAListIsCheckedBeforeAnyLaunch) {
  const int64_t t = 4, n = 4, h = 256, layers = 11; // two launches of at most 10 layers
  auto bf16 = [](size_t count) { return std::vector<uint16_t>(count, 0x3f80); };
  std::vector<uint16_t> initial = bf16(t * n * h);
  std::vector<std::vector<uint16_t>> ys, ins, res;
  std::vector<std::vector<float>> pres, posts, combs;
  std::vector<tk_tensor> pre, y, post, comb, in, out;
  for (int64_t l = 0; l < layers; ++l) {
    ys.push_back(bf16(t * h)), ins.push_back(std::vector<uint16_t>(t * h, 0xdead)), res.push_back(bf16(t * n * h));
    pres.push_back(std::vector<float>(t * n, 0.25f)), posts.push_back(std::vector<float>(t * n, 0.5f));
    combs.push_back(std::vector<float>(t * n * n, 0.25f));
  }
  for (int64_t l = 0; l < layers; ++l) {
    pre.push_back(host(pres[l].data(), TK_F32, {t, n})), y.push_back(host(ys[l].data(), TK_BF16, {t, h}));
    post.push_back(host(posts[l].data(), TK_F32, {t, n})), comb.push_back(host(combs[l].data(), TK_F32, {t, n, n}));
    in.push_back(host(ins[l].data(), TK_BF16, {t, h})), out.push_back(host(res[l].data(), TK_BF16, {t, n, h}));
  }
  std::vector<uint16_t> big = bf16(t * n * h); // the last residual, written over an input of the first launch
  out[10] = host(big.data(), TK_BF16, {t, n, h}), y[2] = host(big.data(), TK_BF16, {t, h});
  tk_tensor x = host(initial.data(), TK_BF16, {t, n, h});
  EXPECT_EQ(tk_mhc_multilayer_recompute(ctx, &x, (int32_t)layers, pre.data(), (int32_t)layers, y.data(), post.data(),
                                        comb.data(), in.data(), out.data(), nullptr),
            TK_ERROR_INVALID_ARGUMENT);
  const std::string e = tk_last_error();
  EXPECT_NE(e.find("output residual[10]"), std::string::npos) << e;
  EXPECT_NE(e.find("overlaps input layer_output[2]"), std::string::npos) << e;
  EXPECT_EQ(ins[0], std::vector<uint16_t>(t * h, 0xdead)) << "the first launch wrote its layer inputs";
  // Apart, the same call runs.
  out[10] = host(res[10].data(), TK_BF16, {t, n, h}), y[2] = host(ys[2].data(), TK_BF16, {t, h});
  ASSERT_EQ(tk_mhc_multilayer_recompute(ctx, &x, (int32_t)layers, pre.data(), (int32_t)layers, y.data(), post.data(),
                                        comb.data(), in.data(), out.data(), nullptr),
            TK_SUCCESS)
      << tk_last_error();
  EXPECT_NE(ins[0], std::vector<uint16_t>(t * h, 0xdead));
}

TEST(OutputsOverlapNothing, InterleavedViewsAndEmptyTensorsPassOverlapsDoNot) {
  alignas(16) static float buf[64];
  // Columns 0 and 1 of a (32, 2) buffer: interleaved, no element shared.
  tk_tensor even = host(buf, TK_F32, {32}, {2}), odd = host(buf + 1, TK_F32, {32}, {2});
  EXPECT_TRUE(outputsOverlapNothing("op", {{"a", &even}}, {{"b", &odd}}).isOk());
  // The same start, whatever the strides.
  tk_tensor dense = host(buf, TK_F32, {8});
  EXPECT_FALSE(outputsOverlapNothing("op", {{"a", &even}}, {{"b", &dense}}).isOk());
  // Dense ranges that meet in one element.
  tk_tensor head = host(buf, TK_F32, {9}), tail = host(buf + 8, TK_F32, {8});
  tk::runtime::Status s = outputsOverlapNothing("op", {{"head", &head}}, {{"tail", &tail}});
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("op: output tail"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("overlaps input head"), std::string::npos) << s.message();
  // Columns of one (rows, 2C) buffer: the left half and the right half are apart; a window that straddles both
  // halves, or rows 1.. of one against rows 0.. of another with another row stride, is not.
  alignas(16) static float wide[8 * 16];
  tk_tensor left = host(wide, TK_F32, {8, 8}, {16, 1}), right = host(wide + 8, TK_F32, {8, 8}, {16, 1});
  EXPECT_TRUE(outputsOverlapNothing("op", {{"l", &left}}, {{"r", &right}}).isOk());
  tk_tensor straddle = host(wide + 4, TK_F32, {8, 8}, {16, 1});
  EXPECT_FALSE(outputsOverlapNothing("op", {{"l", &left}}, {{"s", &straddle}}).isOk());
  tk_tensor dense2 = host(wide + 16, TK_F32, {4, 16}); // rows 1-4, dense, over left's rows 1-4
  EXPECT_FALSE(outputsOverlapNothing("op", {{"l", &left}}, {{"d", &dense2}}).isOk());
  tk_tensor skewed = host(wide + 17, TK_F32, {4, 8}, {24, 1}); // another row stride: meets left in row 1
  EXPECT_FALSE(outputsOverlapNothing("op", {{"l", &left}}, {{"k", &skewed}}).isOk());
  // An output whose own elements share memory (a row stride below its row, a stride of 0) is refused alone.
  tk_tensor folded = host(wide, TK_F32, {8, 8}, {4, 1});
  s = outputsOverlapNothing("op", {}, {{"f", &folded}});
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("op: output f has elements that share memory (strides 4, 1 for sizes 8, 8)"),
            std::string::npos)
      << s.message();
  tk_tensor broadcast = host(wide, TK_F32, {8, 8}, {0, 1});
  EXPECT_FALSE(outputsOverlapNothing("op", {}, {{"b", &broadcast}}).isOk());
  EXPECT_FALSE(outputsOverlapNothing("op", {{"f", &folded}}, {{"l", &left}}).isOk()); // an input: meets left
  EXPECT_TRUE(outputsOverlapNothing("op", {}, {{"l", &left}, {"r", &right}}).isOk());
  // Inputs may share memory; an empty output addresses nothing; a null tensor is an absent one.
  tk_tensor empty = host(buf, TK_F32, {0, 8});
  EXPECT_TRUE(outputsOverlapNothing("op", {{"a", &head}, {"b", &head}}, {{"e", &empty}, {"n", nullptr}}).isOk());
}

} // namespace
