// The MoE operators are deterministic by construction (no float atomics, ties
// to the lower index): each runs 100 times on one input with engineered ties
// (+0 and -0, repeated scores) and every result is bit-identical to the
// first, on a GPU. Skips visibly without a device.
#include "checks/topk_gate_check.h"
#include "tests/kernels/gpu_suite.h"

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
  std::printf("[ MoE determinism ] 5 operators x 100 runs on %s\n", session->device().name.c_str());
  tk_context_destroy(ctx);
}

} // namespace
