//===- big_fuse_api.cpp - tk_mhc_pre_big_fuse (3.8) ------------------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/mhc/big_fuse.h"
#include "kernels/mhc/norm_fn.h"
#include "kernels/mhc/sinkhorn.h"
#include "kernels/mhc/streams.h"
#include "kernels/mhc/views.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Scratch.h"

#include <cmath>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::mhc;

namespace {
// n3 = 2n + n^2 logits must fit the norm_fn product's 32 columns: n <= 4.
constexpr int64_t kMaxStreams = 4, kMaxRepeat = 32;

bool finite(float v) { return std::isfinite(v); }

/// A kernel that follows the norm_fn kernels of a call with G = `width`, as
/// that call makes it on the target it is built for: with the `pdl` they
/// resolve to (TK_SCHEDULE's, the table's or the default), through
/// `factory` (a plain or a scheduled one) of the config so set.
template <typename Config, typename Factory>
tk::runtime::KernelFactory afterNormFn(Factory factory, const Config &config, int64_t width) {
  tk::runtime::KernelFactory f = factory(config);
#ifndef TK_RUNTIME_ONLY // which has no programs to build
  f.build = [factory, config, width](mlir::MLIRContext &ctx, const tk::compiler::Target &target) {
    NormFnConfig norm;
    norm.width = width;
    tk::runtime::ScheduleChoice choice;
    Status s = normFnSchedule(false).choose(tk::runtime::ScheduleSettings::fromEnvironment(), target, norm, choice);
    if (!s.isOk())
      throw std::invalid_argument(s.message());
    Config c = config;
    c.pdl = norm.dependentLaunch();
    return factory(c).build(ctx, target);
  };
#else
  (void)width;
#endif
  return f;
}
} // namespace

extern "C" tk_status tk_mhc_pre_big_fuse(tk_context ctx, const tk_tensor *residual, const tk_tensor *fn,
                                         const tk_tensor *scale, const tk_tensor *base, float rms_eps, float pre_eps,
                                         float sinkhorn_eps, float post_mult_value, int32_t sinkhorn_repeat,
                                         tk_tensor *post_mix, tk_tensor *comb_mix, tk_tensor *layer_input,
                                         tk_stream stream) {
  const char *op = "tk_mhc_pre_big_fuse";
  return tk::kernels::guardCall(
      op, {{"residual", residual}, {"fn", fn}, {"scale", scale}, {"base", base}},
      {{"post_mix", post_mix}, {"comb_mix", comb_mix}, {"layer_input", layer_input}}, [&] {
        Arguments args(op);
        args.require(ctx != nullptr, "ctx is null");
        args.tensor("residual", residual, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
        args.tensor("fn", fn, {"n3", "G"}, {TK_F32}, Layout::Contiguous);
        args.tensor("scale", scale, {3}, {TK_F32}, Layout::Contiguous);
        args.tensor("base", base, {"n3"}, {TK_F32}, Layout::Contiguous);
        args.tensor("post_mix", post_mix, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("comb_mix", comb_mix, {"T", "n", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("layer_input", layer_input, {"T", "H"}, {TK_BF16}, Layout::Contiguous);
        if (!args.ok())
          return tk::runtime::report(args.status());
        const int64_t t = args["T"], n = args["n"], h = args["H"], n3 = args["n3"];
        args.require(n3 == 2 * n + n * n, "fn has " + std::to_string(n3) + " rows; n = " + std::to_string(n) +
                                              " streams need 2n + n^2 = " + std::to_string(2 * n + n * n));
        args.require(sinkhorn_repeat >= 1,
                     "sinkhorn_repeat must be at least 1, got " + std::to_string(sinkhorn_repeat));
        args.require(finite(pre_eps) && finite(post_mult_value) && finite(sinkhorn_eps) && sinkhorn_eps >= 0,
                     "pre_eps and post_mult_value must be finite and sinkhorn_eps finite and non-negative");
        if (Status s = checkNormFnLimits(op, args, rms_eps); !s.isOk())
          return tk::runtime::report(s);
        if (n > kMaxStreams || sinkhorn_repeat > kMaxRepeat)
          return tk::runtime::report(Status::unsupported(
              std::string(op) + ": n = " + std::to_string(n) +
              ", sinkhorn_repeat = " + std::to_string(sinkhorn_repeat) + "; n up to " + std::to_string(kMaxStreams) +
              " (2n + n^2 logits in the product's 32 columns) and repeat up to " + std::to_string(kMaxRepeat) +
              " are supported"));
        if (t == 0)
          return tk::runtime::report(Status::ok());
        tk::compiler::Target target;
        if (Status s = ctx->targetFor({residual, fn, scale, base, post_mix, comb_mix, layer_input}, target); !s.isOk())
          return tk::runtime::report(s);
        // The logits (and the mul and ss norm_fn's kernel writes beside them) in scratch memory.
        tk::runtime::Scratch scratch;
        if (Status s = scratch.allocateOnStream(ctx, *layer_input, (size_t)(t * (2 * n3 + 1) * 4), stream); !s.isOk())
          return tk::runtime::report(s);
        tk_tensor mix = scratch.tensor(TK_F32, t, n3), mul = mix, ss = scratch.tensor(TK_F32, t, 1);
        mul.data = static_cast<char *>(mix.data) + t * n3 * 4;
        ss.data = static_cast<char *>(mul.data) + t * n3 * 4;
        // 1. tk_mhc_pre_norm_fn_fwd's kernels, scheduled as that call would be.
        NormFnConfig norm;
        norm.width = n * h;
        tk_tensor x = mergedLastTwo(residual);
        if (Status s = runNormFnForward(ctx, norm, x, fn, nullptr, &mix, &mul, &ss, rms_eps, stream); !s.isOk())
          return tk::runtime::report(s);
        // 2. post and comb, on the tile tk_sinkhorn_normalize_fwd would take.
        SinkhornConfig sinkhorn;
        sinkhorn.n = n, sinkhorn.repeat = sinkhorn_repeat;
        tk::runtime::ScheduleChoice choice;
        if (Status s = sinkhornSchedule(false).choose(ctx->schedules, target, sinkhorn, choice); !s.isOk())
          return tk::runtime::report(s);
        BigFuseMixConfig mixes;
        mixes.streams = n, mixes.repeat = sinkhorn_repeat, mixes.rows = sinkhorn.rows, mixes.threads = sinkhorn.threads;
        mixes.rolled = sinkhorn.isRolled();
        mixes.pdl = norm.dependentLaunch();
        tk_tensor postLogits = strided(&mix, n, {t, n, 1}, {n3, 1, 1}),
                  combLogits = strided(&mix, 2 * n, {t, n, n}, {n3, n, 1}),
                  scale3 = strided(scale, 0, {1, 1, 3}, {3, 3, 1}), basePost = strided(base, n, {1, n, 1}, {n, 1, 1}),
                  baseComb = strided(base, 2 * n, {1, n, n}, {n * n, n, 1}), post3 = withUnitDim(post_mix, 2);
        if (Status s = ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildBigFuseMixes), mixes),
                                {&postLogits, &combLogits, &scale3, &basePost, &baseComb, &post3, comb_mix}, stream,
                                {tk::runtime::f32Scalar(post_mult_value), tk::runtime::f32Scalar(sinkhorn_eps)});
            !s.isOk())
          return tk::runtime::report(s);
        // 3. The layer input, pre computed from its logits.
        StreamConfig apply{StreamOp::PreBigFuseApply};
        apply.streams = n, apply.hidden = h, apply.pdl = norm.dependentLaunch();
        tk_tensor preLogits = strided(&mix, 0, {t, n, 1}, {n3, 1, 1}), basePre = strided(base, 0, {1, n, 1}, {n, 1, 1}),
                  out3 = withUnitDim(layer_input, 1);
        return tk::runtime::report(
            runScheduled(ctx, streamSchedule(StreamOp::PreBigFuseApply), TK_PROGRAM(buildStreamKernel), apply,
                         {residual, &preLogits, &scale3, &basePre, &out3}, stream, {tk::runtime::f32Scalar(pre_eps)}));
      });
}

TK_REGISTER_OPERATORS(big_fuse) {
  registerSchedule(streamSchedule(StreamOp::PreBigFuseApply));
  BigFuseMixConfig mixes;
  mixes.rolled = SinkhornConfig().isRolled(); // the forward's heuristic form, as a call takes it
  StreamConfig apply{StreamOp::PreBigFuseApply};
  apply.streams = 4, apply.hidden = 7168;
  registerOperator(
      {"mhc_pre_big_fuse",
       "mhc",
       "tk_mhc_pre_big_fuse",
       "inference: norm_fn's forward kernels, then post and Sinkhorn's comb per token, then the layer input with pre "
       "from "
       "its logits; bit-identical to the chain of the unfused operators",
       {KernelVariant{"mhc_pre_big_fuse_mixes.n4.r10", afterNormFn(
                                                           [](const BigFuseMixConfig &c) {
                                                             return tk::runtime::factoryOf(
                                                                 TK_PROGRAM(buildBigFuseMixes), c);
                                                           },
                                                           mixes, 4 * 7168)},
        KernelVariant{"mhc_pre_big_fuse.n4.h7168", afterNormFn(
                                                       [](const StreamConfig &c) {
                                                         return scheduledFactory(
                                                             streamSchedule(StreamOp::PreBigFuseApply),
                                                             TK_PROGRAM(buildStreamKernel), c);
                                                       },
                                                       apply, 4 * 7168)}}});
}
