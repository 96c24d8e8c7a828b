// mHC's backward reductions run in a fixed order (no float atomics): 100 runs
// of every mHC backward entry point on the same input give the same bits on
// a GPU, the last 50 with the context told to use 7 SMs (tk_set_num_sms),
// which must not change a bit. Skips visibly without a device.
#include "checks/bf16.h"
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/random_values.h"
#include "tk/tk.h"

#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

namespace {

class MhcDeterminismGpu : public GpuSuite<MhcDeterminismGpu> {};

using tk::test::randn;
using tk::test::randnBf16;

TEST_F(MhcDeterminismGpu, HundredRunsOfEveryBackwardAreBitIdentical) {
  tk_context ctx;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  using tk::checks::deviceTensor;
  auto put = [&](const void *host, size_t bytes) {
    void *d = session->alloc(bytes);
    session->upload(d, host, bytes);
    return d;
  };
  uint32_t seed = 1;
  auto bf16 = [&](std::vector<int64_t> shape) {
    size_t count = 1;
    for (int64_t d : shape)
      count *= d;
    std::vector<uint16_t> h = randnBf16(count, seed++);
    return deviceTensor(put(h.data(), count * 2), TK_BF16, shape);
  };
  auto f32 = [&](std::vector<int64_t> shape) {
    size_t count = 1;
    for (int64_t d : shape)
      count *= d;
    std::vector<float> h = randn(count, seed++);
    return deviceTensor(put(h.data(), count * 4), TK_F32, shape);
  };
  // One output region per call, poisoned before each run; `start`, when
  // given, is what the region holds before the call (an accumulated gradient).
  auto hundred = [&](const char *name, size_t bytes, const std::vector<uint8_t> &start,
                     const std::function<tk_status(void *)> &call) {
    void *out = session->alloc(bytes);
    std::vector<uint8_t> first(bytes), again(bytes);
    int differing = 0;
    ASSERT_EQ(tk_set_num_sms(ctx, 0), TK_SUCCESS) << tk_last_error();
    for (int run = 0; run < 100; ++run) {
      if (run == 50)
        ASSERT_EQ(tk_set_num_sms(ctx, 7), TK_SUCCESS) << tk_last_error();
      if (start.empty())
        session->fill(out, 0xEE, bytes);
      else
        session->upload(out, start.data(), bytes);
      ASSERT_EQ(call(out), TK_SUCCESS) << name << ": " << tk_last_error();
      session->download(run ? again.data() : first.data(), out, bytes);
      differing += run > 0 && std::memcmp(first.data(), again.data(), bytes) != 0;
    }
    EXPECT_EQ(differing, 0) << name;
  };
  const int64_t t = 4001, n = 4, h = 2560, m = 2 * n + n * n;
  tk_tensor dout3 = bf16({t, n, h}), dout2 = bf16({t, h}), x3 = bf16({t, n, h}), x2 = bf16({t, h});
  tk_tensor mix = f32({t, n}), comb = f32({t, n, n});
  const size_t big = t * n * h * 2, row = t * h * 2;
  hundred("expand_to_mhc_bwd", row, {}, [&](void *o) {
    tk_tensor dh = deviceTensor(o, TK_BF16, {t, h});
    return tk_expand_to_mhc_bwd(ctx, &dout3, &dh, nullptr);
  });
  std::vector<uint16_t> acc = randnBf16(t * n * h, 99);
  std::vector<uint8_t> accStart(big + t * n * 4, 0xEE);
  std::memcpy(accStart.data(), acc.data(), big);
  hundred("mhc_pre_apply_mix_bwd (accumulating)", big + t * n * 4, accStart, [&](void *o) {
    tk_tensor dx = deviceTensor(o, TK_BF16, {t, n, h}), dm = deviceTensor(static_cast<char *>(o) + big, TK_F32, {t, n});
    return tk_mhc_pre_apply_mix_bwd(ctx, &dout2, &x3, &mix, 1, &dx, &dm, nullptr);
  });
  hundred("mhc_post_bwd", row + big + t * n * 4 + t * n * n * 4, {}, [&](void *o) {
    char *p = static_cast<char *>(o);
    tk_tensor dx = deviceTensor(p, TK_BF16, {t, h}), dres = deviceTensor(p + row, TK_BF16, {t, n, h}),
              dpost = deviceTensor(p + row + big, TK_F32, {t, n}),
              dcomb = deviceTensor(p + row + big + t * n * 4, TK_F32, {t, n, n});
    return tk_mhc_post_bwd(ctx, &dout3, &x2, &x3, &mix, &comb, &dx, &dres, &dpost, &dcomb, nullptr);
  });
  tk_tensor sx = f32({t, n, n}), sg = f32({t, n, n});
  hundred("sinkhorn_normalize_bwd", t * n * n * 4, {}, [&](void *o) {
    tk_tensor gx = deviceTensor(o, TK_F32, {t, n, n});
    return tk_sinkhorn_normalize_bwd(ctx, &sg, &sx, 10, 1e-6f, &gx, nullptr);
  });
  tk_tensor u = f32({t, m}), scale = f32({3}), base = f32({m}), gpre = f32({t, n}), gpost = f32({t, n}),
            gcomb = f32({t, n, n}), post = f32({t, n});
  hundred("mhc_pre_split_mixes_bwd", (t * m + 3 + m) * 4, {}, [&](void *o) {
    float *p = static_cast<float *>(o);
    tk_tensor gu = deviceTensor(p, TK_F32, {t, m}), gs = deviceTensor(p + t * m, TK_F32, {3}),
              gb = deviceTensor(p + t * m + 3, TK_F32, {m});
    return tk_mhc_pre_split_mixes_bwd(ctx, &gpre, &gpost, &gcomb, &u, &post, &scale, &base, 2.0f, &gu, &gs, &gb,
                                      nullptr);
  });
  // mhc_head's input: the first n columns of the wider logits (strided rows).
  tk_tensor hu = u, hs = f32({1}), hb = f32({n}), hg = f32({t, n});
  hu.shape[1] = n;
  hundred("mhc_head_compute_mix_bwd", (t * n + 1 + n) * 4, {}, [&](void *o) {
    float *p = static_cast<float *>(o);
    tk_tensor gu = deviceTensor(p, TK_F32, {t, n}), gs = deviceTensor(p + t * n, TK_F32, {1}),
              gb = deviceTensor(p + t * n + 1, TK_F32, {n});
    return tk_mhc_head_compute_mix_bwd(ctx, &hg, &hu, &hs, &hb, &gu, &gs, &gb, nullptr);
  });
  // norm_fn: the per-token norms, then the column slabs walking every token (the residual gradient accumulated).
  const int64_t g = n * h;
  tk_tensor fn = f32({m, g}), nw = f32({g}), gmix = f32({t, m}), mul = f32({t, m}), ss = f32({t});
  std::vector<float> ssHost = randn(t, 77);
  for (float &v : ssHost)
    v = v * v * g + 1.0f; // a sum of squares: positive
  session->upload(ss.data, ssHost.data(), t * 4);
  std::vector<uint8_t> resStart(big + (m + 1) * g * 4, 0xEE);
  std::memcpy(resStart.data(), acc.data(), big);
  hundred("mhc_pre_norm_fn_bwd (accumulating, norm weight)", big + (m + 1) * g * 4, resStart, [&](void *o) {
    char *p = static_cast<char *>(o);
    tk_tensor gres = deviceTensor(p, TK_BF16, {t, n, h}), gfn = deviceTensor(p + big, TK_F32, {m, g}),
              gw = deviceTensor(p + big + m * g * 4, TK_F32, {g});
    return tk_mhc_pre_norm_fn_bwd(ctx, &gmix, &x3, &fn, &nw, &mul, &ss, 1e-6f, 1, &gres, &gfn, &gw, nullptr);
  });
  std::printf(
      "[ mhc determinism ] expand, apply_mix, post, sinkhorn, split_mixes, head_compute_mix and norm_fn backward: "
      "100 runs each (50 on 7 SMs): %s\n",
      HasFailure() ? "results differ" : "bit-identical");
  tk_context_destroy(ctx);
}

} // namespace
