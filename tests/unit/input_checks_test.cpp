// tk_set_input_checks on the CPU path: the check kernel runs like any other
// (the same DSL program the GPU runs), finds the first bad element, names
// it, and the call writes nothing; unchecked, the same call succeeds.
#include "checks/gpu_session.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace {

/// A host descriptor over `v` (the CPU path's tensors).
template <typename T>
tk_tensor host(std::vector<T> &v, tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  return tk::checks::Placement{}.tensor(v.data(), dtype, std::move(shape), std::move(strides));
}

struct Checked : ::testing::Test {
  tk_context ctx = nullptr;
  void SetUp() override { ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS); }
  void TearDown() override { tk_context_destroy(ctx); }
  void expectError(tk_status got, const std::string &message) {
    EXPECT_EQ(got, TK_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tk_last_error()).find(message), std::string::npos) << tk_last_error();
  }
};

TEST_F(Checked, FlagsAreValidated) {
  uint32_t flags = 7;
  ASSERT_EQ(tk_get_input_checks(ctx, &flags), TK_SUCCESS);
  EXPECT_EQ(flags, 0u); // off by default
  expectError(tk_set_input_checks(ctx, 4), "unknown flags");
  ASSERT_EQ(tk_set_input_checks(ctx, TK_CHECK_INDICES | TK_CHECK_FINITE), TK_SUCCESS);
  ASSERT_EQ(tk_get_input_checks(ctx, &flags), TK_SUCCESS);
  EXPECT_EQ(flags, (uint32_t)(TK_CHECK_INDICES | TK_CHECK_FINITE));
  expectError(tk_set_input_checks(nullptr, 0), "ctx is null");
}

TEST_F(Checked, AuxFiNamesTheFirstIdOutsideItsRange) {
  // 3000 ids over several tiles: -2 at [999, 2] and 300 at [411, 1]; the first in flat order is named.
  std::vector<int64_t> ids(1000 * 3);
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = (int64_t)(i % 257) - 1;
  ids[2999] = -2, ids[1234] = 300;
  std::vector<float> fi(256, -7.0f);
  tk_tensor tIds = host(ids, TK_I64, {1000, 3}), tFi = host(fi, TK_F32, {256});
  ASSERT_EQ(tk_aux_fi(ctx, &tIds, 256, 3, &tFi, nullptr), TK_SUCCESS) << tk_last_error(); // unchecked
  std::fill(fi.begin(), fi.end(), -7.0f);
  ASSERT_EQ(tk_set_input_checks(ctx, TK_CHECK_INDICES), TK_SUCCESS);
  expectError(tk_aux_fi(ctx, &tIds, 256, 3, &tFi, nullptr), "topk_idx[411, 1] = 300 is outside [-1, 256)");
  for (float v : fi)
    ASSERT_EQ(v, -7.0f); // nothing written
  ids[1234] = 5;
  expectError(tk_aux_fi(ctx, &tIds, 256, 3, &tFi, nullptr), "topk_idx[999, 2] = -2");
  ids[2999] = -1;
  EXPECT_EQ(tk_aux_fi(ctx, &tIds, 256, 3, &tFi, nullptr), TK_SUCCESS) << tk_last_error();
}

TEST_F(Checked, ReduceFusedChecksPositionsAgainstM) {
  const int64_t n = 4, k = 2, m = 5, h = 8;
  std::vector<float> x(m * h, 1.0f), out(n * h, -3.0f);
  std::vector<int32_t> pos = {0, 1, 2, -1, 3, 5, 4, -1}; // 5 is M
  tk_tensor tx = host(x, TK_F32, {m, h}), tpos = host(pos, TK_I32, {n, k}), tout = host(out, TK_F32, {n, h});
  ASSERT_EQ(tk_set_input_checks(ctx, TK_CHECK_INDICES), TK_SUCCESS);
  expectError(tk_reduce_fused(ctx, &tx, nullptr, nullptr, &tpos, nullptr, &tout, nullptr),
              "token_topk_to_pos[2, 1] = 5 is outside [-1, 5)");
  for (float v : out)
    ASSERT_EQ(v, -3.0f);
  pos[5] = -1;
  EXPECT_EQ(tk_reduce_fused(ctx, &tx, nullptr, nullptr, &tpos, nullptr, &tout, nullptr), TK_SUCCESS) << tk_last_error();
  EXPECT_EQ(out[2 * h], 1.0f); // row 2: position 4 only
}

TEST_F(Checked, TopkGateRefusesNonFiniteScoresOnlyWhenAsked) {
  const int64_t n = 40, e = 72;
  std::vector<float> scores(n * e);
  for (size_t i = 0; i < scores.size(); ++i)
    scores[i] = std::sin((float)i);
  scores[17 * e + 9] = INFINITY, scores[30 * e + 1] = NAN;
  std::vector<int64_t> idx(n * 6, -9);
  tk_tensor ts = host(scores, TK_F32, {n, e}), ti = host(idx, TK_I64, {n, 6});
  ASSERT_EQ(tk_set_input_checks(ctx, TK_CHECK_INDICES), TK_SUCCESS); // not this one
  EXPECT_EQ(tk_topk_gate(ctx, &ts, 6, &ti, nullptr), TK_SUCCESS) << tk_last_error();
  std::fill(idx.begin(), idx.end(), -9);
  ASSERT_EQ(tk_set_input_checks(ctx, TK_CHECK_FINITE), TK_SUCCESS);
  expectError(tk_topk_gate(ctx, &ts, 6, &ti, nullptr), "scores[17, 9] = inf is not finite");
  for (int64_t v : idx)
    ASSERT_EQ(v, -9);
}

TEST_F(Checked, Top2SumGateChecksOnlyTheFixedRowsStoredIds) {
  // 600 rows: the check's per-tile results span several rows of tiles.
  const int64_t n = 600, e = 32, k = 2;
  std::vector<float> logits(n * e, 0.5f), bias(e, 0.0f), weights(n * k, -1.0f);
  std::vector<uint8_t> fix(n, 0);
  fix[1] = fix[3] = 1;
  // A row stride of 3: column 2 is outside the tensor, and rows that are not fixed hold garbage.
  std::vector<int64_t> stored(n * 3, 99);
  const int64_t head[] = {99, 99, 77, 1, 2, 77, -5, -5, 77, 4, 40, 77, 0, 0, 77, 0, 0, 77};
  std::copy(std::begin(head), std::end(head), stored.begin());
  std::vector<int64_t> ids(n * k, -9);
  tk_tensor tl = host(logits, TK_F32, {n, e}), tb = host(bias, TK_F32, {e}), tf = host(fix, TK_U8, {n}),
            tu = host(stored, TK_I64, {n, k}, {3, 1}), ti = host(ids, TK_I64, {n, k}),
            tw = host(weights, TK_F32, {n, k});
  auto call = [&] {
    return tk_top2_sum_gate(ctx, &tl, &tb, (int32_t)k, 0, 0, 0, 0, 1.0f, 0, 1, 0, 1, TK_SCORING_SIGMOID, nullptr, &tf,
                            nullptr, nullptr, &tu, &ti, &tw, nullptr);
  };
  ASSERT_EQ(tk_set_input_checks(ctx, TK_CHECK_INDICES | TK_CHECK_FINITE), TK_SUCCESS);
  expectError(call(), "unmapped_topk_idx[3, 1] = 40 is outside [0, 32)");
  for (int64_t v : ids)
    ASSERT_EQ(v, -9);
  stored[10] = 31;
  EXPECT_EQ(call(), TK_SUCCESS) << tk_last_error();
  EXPECT_EQ(ids[1 * k + 0], 1);
  EXPECT_EQ(ids[3 * k + 1], 31);
  fix[520] = 1, stored[520 * 3] = -1, stored[520 * 3 + 1] = 0;
  expectError(call(), "unmapped_topk_idx[520, 0] = -1 is outside [0, 32)");
  stored[520 * 3] = 5;
  EXPECT_EQ(call(), TK_SUCCESS) << tk_last_error();
  EXPECT_EQ(ids[520 * k], 5);
  logits[4 * e + 31] = -INFINITY;
  expectError(call(), "logits[4, 31] = -inf is not finite");
}

TEST_F(Checked, FusedMappingReadsBackAnUndersizedM) {
  const int64_t n = 8, k = 2, e = 4, a = 4;
  std::vector<int64_t> ids(n * k);
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = (int64_t)(i % e);
  const int64_t m = 8; // the mapping needs 16 positions
  std::vector<int32_t> p2e(m), p2t(m), p2tk(m), t2p(n * k), start(e), end(e), count(e);
  tk_tensor ti = host(ids, TK_I64, {n, k}), a1 = host(p2e, TK_I32, {m}), a2 = host(p2t, TK_I32, {m}),
            a3 = host(p2tk, TK_I32, {m}), a4 = host(t2p, TK_I32, {n, k}), a5 = host(start, TK_I32, {e}),
            a6 = host(end, TK_I32, {e}), a7 = host(count, TK_I32, {e});
  auto call = [&] { return tk_get_fused_mapping(ctx, &ti, e, a, &a1, &a2, &a3, &a4, &a5, &a6, &a7, nullptr, nullptr); };
  EXPECT_EQ(call(), TK_SUCCESS) << tk_last_error(); // unchecked: positions past M are dropped
  ASSERT_EQ(tk_set_input_checks(ctx, TK_CHECK_INDICES), TK_SUCCESS);
  expectError(call(), "needs 16 positions");
  ids[5] = 4;
  expectError(call(), "topk_idx[2, 1] = 4 is outside [-1, 4)");
}

} // namespace
