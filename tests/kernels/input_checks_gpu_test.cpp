// tk_set_input_checks on a GPU: the check kernel's per-tile results read
// back through the context's page-locked buffer, the first bad element
// named, and nothing written; a row-masked strided check (top2_sum_gate's
// fixed rows). Skips visibly without a device.
#include "tests/kernels/gpu_suite.h"
#include "tk/tk.h"

#include <cmath>
#include <string>
#include <vector>

namespace {

class InputChecksGpu : public GpuSuite<InputChecksGpu> {};

TEST_F(InputChecksGpu, FirstBadElementIsNamedAndNothingIsWritten) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::checks::GpuSession::Scope scope(*session);
  ASSERT_EQ(tk_set_input_checks(ctx, TK_CHECK_INDICES | TK_CHECK_FINITE), TK_SUCCESS);
  // aux_fi over 100000 x 8 ids (many tiles): two bad ids, the earlier one named.
  const int64_t n = 100000, k = 8, e = 256;
  std::vector<int64_t> ids(n * k);
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = (int64_t)((i * 2654435761u) % (e + 1)) - 1;
  ids[777777] = 256, ids[123457] = -3;
  void *dids = session->alloc(ids.size() * 8), *dfi = session->alloc(e * 4);
  session->upload(dids, ids.data(), ids.size() * 8);
  session->fill(dfi, 0xEE, e * 4);
  tk_tensor tids = tk::checks::deviceTensor(dids, TK_I64, {n, k}), tfi = tk::checks::deviceTensor(dfi, TK_F32, {e});
  EXPECT_EQ(tk_aux_fi(ctx, &tids, (int32_t)e, 8, &tfi, nullptr), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("topk_idx[15432, 1] = -3 is outside [-1, 256)"), std::string::npos)
      << tk_last_error();
  std::vector<uint8_t> fi(e * 4);
  session->download(fi.data(), dfi, fi.size());
  for (uint8_t b : fi)
    ASSERT_EQ(b, 0xEE);
  ids[123457] = 3, ids[777777] = 4;
  session->upload(dids, ids.data(), ids.size() * 8);
  EXPECT_EQ(tk_aux_fi(ctx, &tids, (int32_t)e, 8, &tfi, nullptr), TK_SUCCESS) << tk_last_error();
  // top2_sum_gate: a NaN logit; then stored ids with a row stride of 3, checked only in fixed rows.
  const int64_t t = 5000, experts = 72;
  std::vector<float> logits(t * experts, 0.25f), bias(experts, 0.0f);
  logits[4321 * experts + 70] = NAN;
  std::vector<uint8_t> fix(t, 0);
  std::vector<int64_t> stored(t * 3, 999); // 999 outside [0, 72) everywhere: only fixed rows count
  for (int64_t r = 0; r < t; r += 7)
    fix[r] = 1, stored[r * 3] = r % experts, stored[r * 3 + 1] = (r + 1) % experts;
  stored[4207 * 3 + 1] = 72; // row 4207 = 7 x 601 is fixed
  void *dl = session->alloc(logits.size() * 4), *db = session->alloc(experts * 4), *dfix = session->alloc(t),
       *dst = session->alloc(stored.size() * 8), *dout = session->alloc(t * 2 * 12);
  session->upload(dl, logits.data(), logits.size() * 4);
  session->upload(db, bias.data(), experts * 4);
  session->upload(dfix, fix.data(), t);
  session->upload(dst, stored.data(), stored.size() * 8);
  session->fill(dout, 0xEE, t * 2 * 12);
  tk_tensor tl = tk::checks::deviceTensor(dl, TK_F32, {t, experts}),
            tb = tk::checks::deviceTensor(db, TK_F32, {experts}), tf = tk::checks::deviceTensor(dfix, TK_U8, {t}),
            tu = tk::checks::deviceTensor(dst, TK_I64, {t, 2}, {3, 1}),
            ti = tk::checks::deviceTensor(dout, TK_I64, {t, 2}),
            tw = tk::checks::deviceTensor(static_cast<char *>(dout) + t * 16, TK_F32, {t, 2});
  auto gate = [&] {
    return tk_top2_sum_gate(ctx, &tl, &tb, 2, 0, 0, 0, 0, 1.0f, 0, 1, 0, 1, TK_SCORING_SIGMOID, nullptr, &tf, nullptr,
                            nullptr, &tu, &ti, &tw, nullptr);
  };
  EXPECT_EQ(gate(), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("logits[4321, 70] = nan is not finite"), std::string::npos)
      << tk_last_error();
  logits[4321 * experts + 70] = 0.5f;
  session->upload(dl, logits.data(), logits.size() * 4);
  EXPECT_EQ(gate(), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tk_last_error()).find("unmapped_topk_idx[4207, 1] = 72 is outside [0, 72)"), std::string::npos)
      << tk_last_error();
  std::vector<uint8_t> untouched(t * 2 * 12);
  session->download(untouched.data(), dout, untouched.size());
  for (uint8_t b : untouched)
    ASSERT_EQ(b, 0xEE);
  stored[4207 * 3 + 1] = 71;
  session->upload(dst, stored.data(), stored.size() * 8);
  EXPECT_EQ(gate(), TK_SUCCESS) << tk_last_error();
  std::vector<int64_t> got(t * 2);
  session->download(got.data(), dout, got.size() * 8);
  EXPECT_EQ(got[4207 * 2 + 1], 71); // the fixed row's stored id, reused
  tk_context_destroy(ctx);
}

} // namespace
