//===- check_command.cpp - tk check: every entry point at small shapes ----===//
//
// Every entry point of tk.h and the variants that take other code paths
// (formats, scale-factor layouts, strides, gathers, clamps, re-quantization),
// at shapes small enough for compute-sanitizer's racecheck and for
// AddressSanitizer on the CPU path, each compared bit for bit with its C++
// reference. Persistent grids are sized for a few SMs (--sms) so that each
// block loops over several tiles, as on a full device at large shapes.
//===----------------------------------------------------------------------===//
#include "tools/tk/commands.h"

#include "bench/cast_back_check.h"
#include "bench/expf_oracle.h"
#include "bench/gpu_session.h"
#include "bench/lossless_check.h"
#include "bench/per_block_cast_check.h"
#include "bench/per_channel_cast_check.h"
#include "bench/per_token_cast_check.h"
#include "bench/swiglu_backward_check.h"
#include "bench/swiglu_check.h"
#include "bench/transpose_check.h"
#include "tk/tk.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

namespace tk::tools {

namespace {

struct SmallCase {
  std::string op, described;
  std::function<bench::CheckResult(bench::GpuSession *, tk_context, const bench::ExpTable *)> check;
};

std::vector<SmallCase> smallCases() {
  using namespace bench;
  std::vector<SmallCase> cases;
  auto perToken = [&](PerTokenCastCase c) {
    cases.push_back({"per_token_cast", describe(c), [c](GpuSession *g, tk_context ctx, const ExpTable *) {
                       return checkPerTokenCast(g, ctx, c, makeInput(c), false);
                     }});
  };
  perToken({256, 7168, 128, TK_BF16, 0});
  perToken({256, 7168, 128, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF});
  perToken({100, 2560, 32, TK_F32, TK_ROUND_SF});
  perToken({64, 7168, 7168, TK_BF16, 0});
  perToken({100, 2048, 128, TK_BF16, TK_ROUND_SF, /*xRowStride=*/2560});
  perToken({256, 7168, 128, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0});
  {
    PerTokenCastCase c{256, 7168, 32, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF};
    c.fmt = TK_FORMAT_E2M1;
    perToken(c);
    PerTokenCastCase e{64, 7168, 7168, TK_F32, TK_ROUND_SF};
    e.fmt = TK_FORMAT_E5M6;
    perToken(e);
  }
  {
    PerTokenCastCase c{256, 7168, 128, TK_BF16, TK_ROUND_SF};
    cases.push_back({"per_token_cast_with_sf_only + precomputed_sf", describe(c),
                     [c](GpuSession *g, tk_context ctx, const ExpTable *) {
                       return checkPerTokenVariants(g, ctx, c, makeInput(c));
                     }});
    PerTokenCastCase q{256, 7168, 128, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF};
    cases.push_back({"per_token_cast (e4m3 128x128 in)", describe(q),
                     [q](GpuSession *g, tk_context ctx, const ExpTable *) {
                       return checkPerTokenRequant(g, ctx, q, {128, 128, true, true});
                     }});
    PerTokenCastCase f{256, 7168, 32, TK_BF16, TK_SF_COL_MAJOR | TK_ROUND_SF};
    f.fmt = TK_FORMAT_E2M1;
    QuantizedInput fp4{32, 32};
    fp4.fmt = TK_FORMAT_E2M1;
    cases.push_back({"per_token_cast (e2m1 32x32 in)", describe(f),
                     [f, fp4](GpuSession *g, tk_context ctx, const ExpTable *) {
                       return checkPerTokenRequant(g, ctx, f, fp4);
                     }});
  }
  for (const PerBlockCastCase &c : {PerBlockCastCase{256, 7168, 128, 128, TK_BF16, TK_ROUND_SF},
                                    PerBlockCastCase{100, 7168, 32, 32, TK_F32, TK_ROUND_SF | TK_SF_COL_MAJOR}})
    cases.push_back({"per_block_cast (+ sf_only, precomputed_sf)", describe(c),
                     [c](GpuSession *g, tk_context ctx, const ExpTable *) {
                       return checkPerBlockCast(g, ctx, c, false);
                     }});
  for (const LosslessCase &c : {LosslessCase{256, 7168, 1, 32, 1, 128, true, true},
                                LosslessCase{256, 7168, 1, 32, 128, 128}, LosslessCase{256, 7168, 1, 32, 32, 32}})
    cases.push_back({"per_block_cast_lossless", describe(c), [c](GpuSession *g, tk_context ctx, const ExpTable *) {
                       return checkPerBlockLossless(g, ctx, c, false);
                     }});
  auto perChannel = [&](const std::string &op, PerChannelCastCase c) {
    cases.push_back({op, describe(c), [c](GpuSession *g, tk_context ctx, const ExpTable *exp) {
                       return checkPerChannelCast(g, ctx, c, false, nullptr, exp);
                     }});
  };
  perChannel("per_channel_cast", {256, 7168, 128, TK_BF16, true, false});
  perChannel("per_channel_cast", {256, 2048, 128, TK_F32, false, false});
  perChannel("per_channel_cast_and_transpose", {256, 7168, 128, TK_BF16, false, true});
  perChannel("per_channel_cast_and_transpose", {256, 7168, 32, TK_BF16, true, true});
  {
    PerChannelCastCase q{256, 7168, 128, TK_BF16, false, false};
    q.quantized = true;
    perChannel("per_channel_cast_fused", q);
    PerChannelCastCase gathered{200, 7168, 128, TK_BF16, true, false};
    gathered.gatherTopk = 6;
    perChannel("per_channel_cast_fused", gathered);
    for (bool transposed : {true, false}) {
      PerChannelCastCase s{256, 2048, transposed ? 128 : 32, TK_BF16, true, transposed};
      s.swiglu = true;
      if (!transposed)
        s.clamp = 0.5f;
      perChannel("swiglu_forward_and_per_channel_cast_and_transpose", s);
    }
  }
  auto swigluToken = [&](SwigluCastCase c) {
    cases.push_back({"swiglu_forward_and_per_token_cast", describe(c),
                     [c](GpuSession *g, tk_context ctx, const ExpTable *exp) {
                       return checkSwigluPerTokenCast(g, ctx, c, false, exp);
                     }});
  };
  {
    SwigluCastCase plain{2048, 128};
    plain.plainRows = 256, plain.weights = true, plain.clamp = 0.5f, plain.count = true;
    plain.flags = TK_SF_COL_MAJOR | TK_ROUND_SF;
    swigluToken(plain);
    SwigluCastCase routed{1024, 128};
    routed.tokens = 200, routed.topk = 4, routed.weights = routed.experts = true;
    swigluToken(routed);
    SwigluCastCase packed{1024, 128};
    packed.plainRows = 256, packed.flags = TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0;
    swigluToken(packed);
    SwigluCastCase whole{1024, 1024, TK_F32};
    whole.plainRows = 100, whole.clamp = 10.0f, whole.count = true;
    swigluToken(whole);
  }
  for (std::optional<float> clamp : {std::optional<float>{}, std::optional<float>{0.5f}}) {
    SwigluBackwardCase c{2048, clamp ? 32 : 128, true, clamp};
    c.tokens = 100, c.topk = 4;
    cases.push_back({"swiglu_backward_and_per_token_cast", describe(c),
                     [c](GpuSession *g, tk_context ctx, const ExpTable *) {
                       return checkSwigluBackward(g, ctx, c, false);
                     }});
  }
  for (const CastBackCase &c : {CastBackCase{256, 7168, 1, 128, TK_BF16}, CastBackCase{256, 7168, 128, 128, TK_F32, true},
                                CastBackCase{256, 7168, 128, 1, TK_BF16}})
    cases.push_back({"cast_back", describe(c), [c](GpuSession *g, tk_context ctx, const ExpTable *) {
                       return checkCastBack(g, ctx, c, false);
                     }});
  for (tk_format f : {TK_FORMAT_E2M1, TK_FORMAT_E5M6}) {
    CastBackCase c{100, 7168, 1, f == TK_FORMAT_E2M1 ? 32 : 7168, TK_BF16};
    c.in = f;
    cases.push_back({"cast_back", describe(c), [c](GpuSession *g, tk_context ctx, const ExpTable *) {
                       return checkCastBack(g, ctx, c, false);
                     }});
  }
  for (const TransposeCase &c : {TransposeCase{2, 256, 512, TK_BF16}, TransposeCase{3, 192, 128, TK_F32},
                                 TransposeCase{1, 256, 512, TK_F8_E4M3, 1024, false}})
    cases.push_back({c.batched ? "batched_transpose" : "transpose", describe(c),
                     [c](GpuSession *g, tk_context ctx, const ExpTable *) { return checkTranspose(g, ctx, c, false); }});
  return cases;
}

} // namespace

int cmdCheck(const std::vector<std::string> &args) {
  int sms = 2;
  std::string only;
  bool control = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--out-of-bounds-control") {
      control = true;
    } else if (args[i] == "--sms" && i + 1 < args.size()) {
      sms = std::atoi(args[++i].c_str());
    } else if (args[i] == "--only" && i + 1 < args.size()) {
      only = args[++i];
    } else {
      std::fprintf(stderr, "tk check: unknown argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  bench::GpuSession session;
  bench::GpuSession *gpu = session.ok() ? &session : nullptr;
  if (gpu)
    std::printf("GPU: %s, persistent grids sized for %d SMs\n", gpu->device().name.c_str(), sms);
  else
    std::printf("no CUDA device (%s): the CPU path\n", session.status().message().c_str());
  std::optional<bench::ExpTable> deviceExp;
  if (gpu)
    deviceExp.emplace(bench::deviceExpTable(*gpu, bench::bf16SwigluExpArguments()));
  tk_context ctx;
  if (tk_context_create(&ctx) != TK_SUCCESS) {
    std::fprintf(stderr, "tk check: %s\n", tk_last_error());
    return 1;
  }
  if (gpu && tk_set_num_sms(ctx, sms) != TK_SUCCESS) {
    std::fprintf(stderr, "tk check: --sms %d: %s\n", sms, tk_last_error());
    tk_context_destroy(ctx);
    return 2;
  }
  if (control) {
    // A caller who hands over freed memory: the input's buffer is freed
    // before the call, so every read the kernel makes is out of bounds. Only
    // for showing that a memory checker sees inside tk's kernels
    // (compute_sanitizer.sh expects memcheck to report it).
    int rc = 2;
    if (gpu) {
      void *out = gpu->alloc(512 * 512 * 2), *x = nullptr;
      {
        bench::GpuSession::Scope freedAtItsEnd(*gpu);
        x = gpu->alloc(512 * 512 * 2);
      }
      tk_tensor xt = bench::deviceTensor(x, TK_BF16, {512, 512}), ot = bench::deviceTensor(out, TK_BF16, {512, 512});
      tk_status st = tk_transpose(ctx, &xt, &ot, nullptr);
      gpu->synchronize();
      std::printf("out-of-bounds control: tk_transpose of a freed 512 KiB buffer: %s\n",
                  st == TK_SUCCESS ? "launched" : tk_last_error());
      rc = st == TK_SUCCESS ? 0 : 1;
    } else {
      std::fprintf(stderr, "tk check: --out-of-bounds-control needs a GPU\n");
    }
    tk_context_destroy(ctx);
    return rc;
  }
  int failures = 0, ran = 0;
  for (const SmallCase &c : smallCases()) {
    if (!only.empty() && c.op.find(only) == std::string::npos)
      continue;
    bench::CheckResult r = c.check(gpu, ctx, deviceExp ? &*deviceExp : nullptr);
    ++ran;
    failures += !r.exact();
    std::printf("%-46s %-40s %s\n", c.op.c_str(), c.described.c_str(), r.verdict().c_str());
    std::fflush(stdout);
  }
  tk_context_destroy(ctx);
  std::printf("%d of %d cases bit-exact\n", ran - failures, ran);
  return failures || ran == 0 ? 1 : 0;
}

} // namespace tk::tools
