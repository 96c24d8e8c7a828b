// The Engram gate's reductions run in a fixed order (no float atomics): 100
// runs of tk_engram_grad_w_reduce from the same start, and of
// tk_engram_gate_fwd and tk_engram_gate_bwd on the same input, give the same
// bits on a GPU. Skips visibly without a device.
#include "checks/bf16.h"
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/random_values.h"
#include "tests/kernels/schedule_context.h"
#include "tk/tk.h"

#include <cstring>
#include <random>
#include <vector>

namespace {

class EngramDeterminismGpu : public GpuSuite<EngramDeterminismGpu> {};

using tk::test::randn;
using tk::test::randnBf16;

TEST_F(EngramDeterminismGpu, HundredRunsAreBitIdentical) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::checks::GpuSession::Scope scope(*session);
  auto put = [&](const void *host, size_t bytes) {
    void *d = session->alloc(bytes);
    session->upload(d, host, bytes);
    return d;
  };
  const int64_t p = 132, n = 4, h = 7168, t = 4001;
  std::vector<float> partial = randn(p * n * h, 1), start = randn(2 * n * h, 2);
  std::vector<uint16_t> wh = randnBf16(n * h, 3), we = randnBf16(n * h, 4);
  void *dp = put(partial.data(), partial.size() * 4), *dh = put(wh.data(), wh.size() * 2),
       *de = put(we.data(), we.size() * 2), *grads = session->alloc(start.size() * 4);
  tk_tensor tp = tk::checks::deviceTensor(dp, TK_F32, {p, n, h}), th = tk::checks::deviceTensor(dh, TK_BF16, {n, h}),
            te = tk::checks::deviceTensor(de, TK_BF16, {n, h}), gh = tk::checks::deviceTensor(grads, TK_F32, {n, h}),
            ge = tk::checks::deviceTensor(static_cast<float *>(grads) + n * h, TK_F32, {n, h});
  std::vector<float> first(start.size()), again(start.size());
  int differing = 0;
  for (int run = 0; run < 100; ++run) {
    session->upload(grads, start.data(), start.size() * 4);
    ASSERT_EQ(tk_engram_grad_w_reduce(ctx, &tp, &th, &te, &gh, &ge, nullptr), TK_SUCCESS) << tk_last_error();
    session->download(run ? again.data() : first.data(), grads, start.size() * 4);
    differing += run > 0 && std::memcmp(first.data(), again.data(), first.size() * 4) != 0;
  }
  EXPECT_EQ(differing, 0) << "engram_grad_w_reduce";

  std::vector<uint16_t> x = randnBf16(t * n * h, 5), k = randnBf16(t * n * h, 6), v = randnBf16(t * h, 7);
  std::vector<float> wf(n * h);
  for (int64_t i = 0; i < n * h; ++i)
    wf[i] = tk::checks::bf16Value(wh[i]) * tk::checks::bf16Value(we[i]);
  void *dx = put(x.data(), x.size() * 2), *dk = put(k.data(), k.size() * 2), *dv = put(v.data(), v.size() * 2),
       *dw = put(wf.data(), wf.size() * 4), *out = session->alloc(x.size() * 2 + 4 * t * n * 4);
  tk_tensor tx = tk::checks::deviceTensor(dx, TK_BF16, {t, n, h}),
            tk_ = tk::checks::deviceTensor(dk, TK_BF16, {t, n, h}), tv = tk::checks::deviceTensor(dv, TK_BF16, {t, h}),
            tw = tk::checks::deviceTensor(dw, TK_F32, {n, h}), to = tk::checks::deviceTensor(out, TK_BF16, {t, n, h}),
            ts[4];
  for (int i = 0; i < 4; ++i)
    ts[i] = tk::checks::deviceTensor(static_cast<char *>(out) + x.size() * 2 + i * t * n * 4, TK_F32, {t, n});
  const size_t bytes = x.size() * 2 + 4 * t * n * 4;
  std::vector<uint8_t> firstOut(bytes), againOut(bytes);
  differing = 0;
  for (int run = 0; run < 100; ++run) {
    session->fill(out, 0xEE, bytes);
    ASSERT_EQ(tk_engram_gate_fwd(ctx, &tx, &tk_, &tv, &tw, 1e-20f, 1e-6f, &to, &ts[0], &ts[1], &ts[2], &ts[3], nullptr),
              TK_SUCCESS)
        << tk_last_error();
    session->download(run ? againOut.data() : firstOut.data(), out, bytes);
    differing += run > 0 && std::memcmp(firstOut.data(), againOut.data(), bytes) != 0;
  }
  EXPECT_EQ(differing, 0) << "engram_gate_fwd";
  // The one-CTA-per-row kernel and other pipelines sum in the same order at
  // the same thread count: the same bits as the default (another thread
  // count reorders the block sums).
  // (Schedules whose shared rows pass this device's limit are skipped, visibly.)
  for (auto [schedule, bytes] : {std::pair<const char *, int64_t>{"engram_gate_fwd:stages=1", 0},
                                 {"engram_gate_fwd:stages=3,rows=16", 3 * 6 * h}}) {
    if (!sharedFits(schedule, bytes))
      continue;
    tk::test::ScheduledContext pipelined(schedule);
    session->fill(out, 0xEE, bytes);
    ASSERT_EQ(tk_engram_gate_fwd(pipelined, &tx, &tk_, &tv, &tw, 1e-20f, 1e-6f, &to, &ts[0], &ts[1], &ts[2], &ts[3],
                                 nullptr),
              TK_SUCCESS)
        << tk_last_error();
    session->download(againOut.data(), out, bytes);
    EXPECT_EQ(std::memcmp(firstOut.data(), againOut.data(), bytes), 0) << schedule;
  }

  // The backward from the forward's statistics (in `out`), with the context
  // told to use every SM, then 7 (tk_set_num_sms): grad_w_partial's rows are
  // the caller's P, so the SM count must not change a bit.
  std::vector<uint16_t> dy = randnBf16(t * n * h, 8);
  void *ddy = put(dy.data(), dy.size() * 2);
  const size_t gradBytes = (2 * t * n * h + t * h) * 2, partialBytes = p * n * h * 4;
  void *grads2 = session->alloc(gradBytes + partialBytes);
  uint16_t *g16 = static_cast<uint16_t *>(grads2);
  tk_tensor tdy = tk::checks::deviceTensor(ddy, TK_BF16, {t, n, h}),
            gx = tk::checks::deviceTensor(g16, TK_BF16, {t, n, h}),
            gk = tk::checks::deviceTensor(g16 + t * n * h, TK_BF16, {t, n, h}),
            gv = tk::checks::deviceTensor(g16 + 2 * t * n * h, TK_BF16, {t, h}),
            gp = tk::checks::deviceTensor(static_cast<char *>(grads2) + gradBytes, TK_F32, {p, n, h});
  std::vector<uint8_t> firstGrads(gradBytes + partialBytes), againGrads(firstGrads.size());
  differing = 0;
  for (int run = 0; run < 100; ++run) {
    if (run == 50) { // gtest's ASSERT is an if/else: braces keep the else its own
      ASSERT_EQ(tk_set_num_sms(ctx, 7), TK_SUCCESS) << tk_last_error();
    }
    session->fill(grads2, 0xEE, firstGrads.size());
    ASSERT_EQ(tk_engram_gate_bwd(ctx, &tdy, &tx, &tk_, &tv, &tw, &ts[0], &ts[1], &ts[2], &ts[3], 1e-6f, &gx, &gk, &gv,
                                 &gp, nullptr),
              TK_SUCCESS)
        << tk_last_error();
    session->download(run ? againGrads.data() : firstGrads.data(), grads2, firstGrads.size());
    differing += run > 0 && std::memcmp(firstGrads.data(), againGrads.data(), firstGrads.size()) != 0;
  }
  EXPECT_EQ(differing, 0) << "engram_gate_bwd";
  // The rows kernel unpipelined and with 3 stages sums in the same order as
  // the default (2 stages) at the same thread count, and split_v's grad_v
  // as the value kernel: the same bits.
  for (auto [schedule, bytes] : {std::pair<const char *, int64_t>{"engram_gate_bwd:stages=1", 0},
                                 {"engram_gate_bwd:stages=3", 3 * 8 * h},
                                 {"engram_gate_bwd:split_v=1", 2 * 10 * h}}) {
    if (!sharedFits(schedule, bytes))
      continue;
    tk::test::ScheduledContext pipelined(schedule);
    session->fill(grads2, 0xEE, firstGrads.size());
    ASSERT_EQ(tk_engram_gate_bwd(pipelined, &tdy, &tx, &tk_, &tv, &tw, &ts[0], &ts[1], &ts[2], &ts[3], 1e-6f, &gx, &gk,
                                 &gv, &gp, nullptr),
              TK_SUCCESS)
        << tk_last_error();
    session->download(againGrads.data(), grads2, firstGrads.size());
    EXPECT_EQ(std::memcmp(firstGrads.data(), againGrads.data(), firstGrads.size()), 0) << schedule;
  }
  // The fused kernel (its chunks spread fewer than 8 columns a thread, so its
  // row sums take another order than the rows kernel's), its partials in
  // registers and in shared memory: 10 runs each bit-identical.
  for (auto [schedule, bytes] : {std::pair<const char *, int64_t>{"engram_gate_bwd:fused=1,threads=256", 2 * 10 * h},
                                 {"engram_gate_bwd:fused=1,shared_partials=1", 2 * 16 * h}}) {
    if (!sharedFits(schedule, bytes))
      continue;
    tk::test::ScheduledContext fused(schedule);
    std::vector<uint8_t> fusedFirst(firstGrads.size());
    int fusedDiffering = 0;
    for (int run = 0; run < 10; ++run) {
      session->fill(grads2, 0xEE, firstGrads.size());
      ASSERT_EQ(tk_engram_gate_bwd(fused, &tdy, &tx, &tk_, &tv, &tw, &ts[0], &ts[1], &ts[2], &ts[3], 1e-6f, &gx, &gk,
                                   &gv, &gp, nullptr),
                TK_SUCCESS)
          << tk_last_error();
      session->download(run ? againGrads.data() : fusedFirst.data(), grads2, firstGrads.size());
      fusedDiffering += run > 0 && std::memcmp(fusedFirst.data(), againGrads.data(), firstGrads.size()) != 0;
    }
    EXPECT_EQ(fusedDiffering, 0) << schedule;
  }
  std::printf("[ engram determinism ] grad_w_reduce, gate_fwd and gate_bwd (50 of its runs on 7 SMs): 100 runs "
              "each, and the gate's other schedules against its defaults: %s\n",
              HasFailure() ? "results differ" : "bit-identical");
  tk_context_destroy(ctx);
}

} // namespace
