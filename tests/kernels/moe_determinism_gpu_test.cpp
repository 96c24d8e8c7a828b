// The MoE operators are deterministic by construction (no float atomics, ties
// to the lower index): each runs 100 times on one input with engineered ties
// (+0 and -0, repeated scores) and every result is bit-identical to the
// first, on a GPU. Skips visibly without a device.
#include "checks/moe_inputs.h"
#include "checks/topk_gate_check.h"
#include "kernels/moe/fused_mapping.h"
#include "tests/kernels/gpu_suite.h"
#include "tk/tk.h"

#include <cstring>
#include <vector>

namespace {

class MoeDeterminismGpu : public GpuSuite<MoeDeterminismGpu> {};

/// Runs `call` 100 times, downloading `bytes` of `out` after each; the number
/// of runs whose bytes differ from the first run's.
template <typename Call> int differingRuns(tk::checks::GpuSession &gpu, void *out, size_t bytes, Call call) {
  std::vector<uint8_t> first(bytes), again(bytes);
  int differing = 0;
  for (int run = 0; run < 100; ++run) {
    gpu.fill(out, 0xEE, bytes);
    EXPECT_EQ(call(), TK_SUCCESS) << tk_last_error();
    gpu.download(run == 0 ? first.data() : again.data(), out, bytes);
    differing += run > 0 && std::memcmp(first.data(), again.data(), bytes) != 0;
  }
  return differing;
}

TEST_F(MoeDeterminismGpu, HundredRunsAreBitIdentical) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::checks::GpuSession::Scope scope(*session);
  const int64_t n = 8001, e = 256;
  std::vector<float> scores =
      tk::checks::makeScores(tk::checks::TopkGateCase{n, e, 8, tk::checks::ScoreValues::Ties, 42});
  void *ds = session->alloc(scores.size() * 4);
  session->upload(ds, scores.data(), scores.size() * 4);
  void *out = session->alloc(n * e * 8);
  tk_tensor ts = tk::checks::deviceTensor(ds, TK_F32, {n, e});
  tk_tensor idx = tk::checks::deviceTensor(out, TK_I64, {n, 8});
  EXPECT_EQ(differingRuns(*session, out, n * 8 * 8, [&] { return tk_topk_gate(ctx, &ts, 8, &idx, nullptr); }), 0)
      << "topk_gate";
  tk_tensor grouped = tk::checks::deviceTensor(ds, TK_F32, {n, 8, 32});
  tk_tensor gidx = tk::checks::deviceTensor(out, TK_I64, {n, 4});
  EXPECT_EQ(differingRuns(*session, out, n * 4 * 8,
                          [&] { return tk_topk_sum_and_topk_group_idx(ctx, &grouped, 2, 4, &gidx, nullptr); }),
            0)
      << "topk_sum_and_topk_group_idx";
  tk_tensor weights = tk::checks::deviceTensor(ds, TK_F32, {n * 32, 8});
  void *den = session->alloc(n * 32 * 4);
  tk_tensor td = tk::checks::deviceTensor(den, TK_F32, {n * 32});
  tk_tensor tn = tk::checks::deviceTensor(out, TK_F32, {n * 32, 8});
  EXPECT_EQ(differingRuns(*session, out, n * 32 * 8 * 4,
                          [&] { return tk_normalize_weight(ctx, &weights, &td, &tn, nullptr); }),
            0)
      << "normalize_weight";
  // The whole gate, group-limited, on the same tied scores as logits: ids and weights in one buffer.
  tk_tensor bias = tk::checks::deviceTensor(static_cast<char *>(ds) + 4 * 1000, TK_F32, {e});
  tk_tensor gateIds = tk::checks::deviceTensor(out, TK_I64, {n, 8});
  tk_tensor gateWeights = tk::checks::deviceTensor(static_cast<char *>(out) + n * 8 * 8, TK_F32, {n, 8});
  EXPECT_EQ(differingRuns(*session, out, n * 8 * 12,
                          [&] {
                            return tk_top2_sum_gate(ctx, &ts, &bias, 8, 4, 8, 0, 0, 2.5f, 1, 4, 1, 2,
                                                    TK_SCORING_SIGMOID, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                    &gateIds, &gateWeights, nullptr);
                          }),
            0)
      << "top2_sum_gate";
  tk_tensor ids = tk::checks::deviceTensor(out, TK_I64, {n, 8}); // topk_gate's ids, rewritten below
  ASSERT_EQ(tk_topk_gate(ctx, &ts, 8, &ids, nullptr), TK_SUCCESS);
  void *masked = session->alloc(n * 8 * 8);
  tk_tensor tm = tk::checks::deviceTensor(masked, TK_I64, {n, 8});
  EXPECT_EQ(differingRuns(*session, masked, n * 8 * 8,
                          [&] { return tk_mask_indices_by_tp(ctx, &ids, 256, 8, 1, 4, &tm, nullptr); }),
            0)
      << "mask_indices_by_tp";
  // In place: each run starts from the same ids (copied in), then is compared.
  void *groups = session->alloc(n * 8 * 8);
  tk_tensor tg = tk::checks::deviceTensor(groups, TK_I64, {n, 8});
  std::vector<int64_t> groupIds(n * 8);
  for (size_t i = 0; i < groupIds.size(); ++i)
    groupIds[i] = (int64_t)((i * 2654435761u) % 13) - 1; // repeats and -1 in every row
  EXPECT_EQ(differingRuns(*session, groups, n * 8 * 8,
                          [&] {
                            session->upload(groups, groupIds.data(), n * 8 * 8);
                            return tk_inplace_unique_group_indices(ctx, &tg, 16, nullptr);
                          }),
            0)
      << "inplace_unique_group_indices";
  // The fused layout of moe.md 4.1's ids: expansion, then the weighted sum back (f32 FMAs in slot order).
  const int64_t tokens = 4001, k = 8, h = 2048;
  const std::vector<int64_t> topk = tk::checks::moeTopkIdx(tokens, k, 256, 8, 7);
  const tk::kernels::moe::FusedMapping map = tk::kernels::moe::fusedMappingReference(topk.data(), tokens, k, 32, 16);
  const int64_t m = map.positions;
  void *dpos = session->alloc(tokens * k * 4), *dexp = session->alloc(m * 4), *dx = session->alloc(tokens * h * 4),
       *dexpanded = session->alloc(m * h * 4), *dw = session->alloc(tokens * k * 4),
       *dreduced = session->alloc(tokens * h * 4);
  session->upload(dpos, map.tokenTopkToPos.data(), tokens * k * 4);
  session->upload(dexp, map.posToExpert.data(), m * 4);
  std::vector<float> rows(tokens * h); // the scores with ties, repeated, as the tokens' rows
  for (size_t i = 0; i < rows.size(); ++i)
    rows[i] = scores[i % scores.size()];
  session->upload(dx, rows.data(), tokens * h * 4);
  session->upload(dw, scores.data() + 12345, tokens * k * 4);
  tk_tensor tpos = tk::checks::deviceTensor(dpos, TK_I32, {tokens, k});
  tk_tensor texp = tk::checks::deviceTensor(dexp, TK_I32, {m});
  tk_tensor tx = tk::checks::deviceTensor(dx, TK_F32, {tokens, h});
  tk_tensor texpanded = tk::checks::deviceTensor(dexpanded, TK_F32, {m, h});
  EXPECT_EQ(differingRuns(*session, dexpanded, m * h * 4,
                          [&] { return tk_expand_to_fused(ctx, &tx, &tpos, &texp, &texpanded, nullptr); }),
            0)
      << "expand_to_fused";
  tk_tensor tw = tk::checks::deviceTensor(dw, TK_F32, {tokens, k});
  tk_tensor treduced = tk::checks::deviceTensor(dreduced, TK_F32, {tokens, h});
  auto reduce = [&] { return tk_reduce_fused(ctx, &texpanded, nullptr, &tw, &tpos, nullptr, &treduced, nullptr); };
  EXPECT_EQ(differingRuns(*session, dreduced, tokens * h * 4, reduce), 0) << "reduce_fused";
  // Counts from integer atomics, whatever order the blocks add in; fi from them.
  void *dids = session->alloc(tokens * k * 8), *dcounts = session->alloc(32 * 4);
  session->upload(dids, topk.data(), tokens * k * 8);
  tk_tensor tids = tk::checks::deviceTensor(dids, TK_I64, {tokens, k});
  tk_tensor tcounts = tk::checks::deviceTensor(dcounts, TK_I32, {32}), tfi = tk::checks::deviceTensor(dcounts, TK_F32, {32});
  EXPECT_EQ(differingRuns(*session, dcounts, 32 * 4, [&] { return tk_group_count(ctx, &tids, 32, &tcounts, nullptr); }),
            0)
      << "group_count";
  EXPECT_EQ(differingRuns(*session, dcounts, 32 * 4, [&] { return tk_aux_fi(ctx, &tids, 32, 8, &tfi, nullptr); }), 0)
      << "aux_fi";
  // The mapping itself: the seven outputs in one buffer, each run compared whole.
  const int64_t f = tokens * k, mappingBytes = (3 * m + f + 3 * 32) * 4;
  void *dmap = session->alloc(mappingBytes);
  auto slice = [&](int64_t offset, std::vector<int64_t> shape) {
    return tk::checks::deviceTensor(static_cast<char *>(dmap) + offset * 4, TK_I32, shape);
  };
  tk_tensor outs[7] = {slice(0, {m}),          slice(m, {m}),           slice(2 * m, {m}),
                       slice(3 * m, {tokens, k}), slice(3 * m + f, {32}), slice(3 * m + f + 32, {32}),
                       slice(3 * m + f + 64, {32})};
  EXPECT_EQ(differingRuns(*session, dmap, mappingBytes,
                          [&] {
                            return tk_get_fused_mapping(ctx, &tids, 32, 16, &outs[0], &outs[1], &outs[2], &outs[3],
                                                        &outs[4], &outs[5], &outs[6], nullptr, nullptr);
                          }),
            0)
      << "get_fused_mapping";
  std::printf("[ MoE determinism ] 11 operators x 100 runs on %s\n", session->device().name.c_str());
  tk_context_destroy(ctx);
}

} // namespace
