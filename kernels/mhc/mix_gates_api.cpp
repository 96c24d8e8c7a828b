//===- mix_gates_api.cpp - tk_mhc_pre_split_mixes_*, tk_mhc_head_compute_mix_* ===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/mhc/mix_gates.h"
#include "kernels/mhc/views.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Scratch.h"

#include <cmath>
#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::mhc;

namespace {
// comb's n x n columns are unrolled per token; the spec's stream mixes stop at 8 (6.3).
constexpr int64_t kMaxStreams = 8;

/// The checks every entry point makes once its tensors hold: n in range,
/// T m within i32 indices, the f32 scalars.
bool checkLimits(const char *op, Arguments &args, MixGateKind kind, float postMult, float preEps, bool backward,
                 Status &status) {
  args.require(std::isfinite(preEps), "pre_eps must be finite, got " + std::to_string(preEps));
  if (kind == MixGateKind::Split)
    args.require(std::isfinite(postMult) && (!backward || postMult != 0),
                 std::string("post_mult_value must be finite") +
                     (backward ? " and non-zero (the backward divides by it)" : "") + ", got " +
                     std::to_string(postMult));
  if (!args.ok()) {
    status = args.status();
    return false;
  }
  const int64_t t = args["T"], n = args["n"];
  if (n < 1 || n > kMaxStreams) {
    status = Status::unsupported(std::string(op) + ": n = " + std::to_string(n) + " streams; 1 to " +
                                 std::to_string(kMaxStreams) + " are supported");
    return false;
  }
  if (t * mixColumns(kind, n) > std::numeric_limits<int32_t>::max()) {
    status =
        Status::unsupported(std::string(op) + ": T = " + std::to_string(t) + " tokens exceed the kernel's i32 indices");
    return false;
  }
  return true;
}

/// Binds T, n and m: `n` from the first output (or gradient), then the
/// logits' m columns checked against the kind's 2n + n^2 or n.
void bindLogits(Arguments &args, MixGateKind kind, const char *name, const tk_tensor *input) {
  if (!args.tensor(name, input, {"T", "m"}, {TK_F32}, Layout::UnitInnerStride) || !args.bound("n"))
    return;
  const int64_t n = args["n"];
  if (n < 1 || n > kMaxStreams) // checkLimits reports it (2n + n^2 could overflow first)
    return;
  const int64_t want = mixColumns(kind, n);
  args.require(args["m"] == want, std::string(name) + " has " + std::to_string(args["m"]) +
                                      " columns; n = " + std::to_string(n) + " streams need " +
                                      (kind == MixGateKind::Split ? "2n + n^2 = " : "n = ") + std::to_string(want));
}

/// The backward's two kernels: du and the partial sums (or, for T = 0, zero
/// partials), then their fixed-order sum into grad_scale and grad_base.
Status runBackward(tk_context ctx, MixGateKind kind, const Arguments &args, std::vector<const tk_tensor *> tensors,
                   const tk_tensor &gradInput, const tk_tensor *gradScale, const tk_tensor *gradBase, float postMult,
                   tk_stream stream) {
  const int64_t t = args["T"], n = args["n"], m = mixColumns(kind, n), columns = m + (int64_t)mixGroups(kind, n).size();
  std::vector<const tk_tensor *> every = tensors;
  every.insert(every.end(), {gradScale, gradBase});
  tk::compiler::Target target;
  if (Status s = ctx->targetFor(every, target); !s.isOk())
    return s;
  MixGateConfig c;
  c.kind = kind, c.stage = MixGateStage::Backward, c.streams = n;
  if (Status s = mixGateSchedule(kind, true).resolve(ctx, target, c); !s.isOk())
    return s;
  MixGateConfig r;
  r.kind = kind, r.stage = MixGateStage::Reduce, r.streams = n;
  if (Status s = mixGateSchedule(kind, true).resolve(ctx, target, r); !s.isOk())
    return s;
  r.pdl = c.pdl;
  // Both kernels made once, for prepare (side by side on a first call) and the runs.
  const std::vector<tk::runtime::KernelFactory> kernels = {tk::runtime::factoryOf(TK_PROGRAM(buildMixGate), c),
                                                           tk::runtime::factoryOf(TK_PROGRAM(buildMixGate), r)};
  if (t > 0)
    ctx->prepare(kernels, every);
  const int64_t blocks = std::max<int64_t>(1, (t + c.numRows() - 1) / c.numRows());
  tk::runtime::Scratch scratch;
  if (Status s = scratch.allocateOnStream(ctx, gradInput, (size_t)(blocks * columns * 4), stream); !s.isOk())
    return s;
  tk_tensor partial = scratch.tensor(TK_F32, blocks, columns);
  if (t == 0) {
    if (Status s = scratch.zeroOnStream(stream); !s.isOk())
      return s;
  } else {
    tensors.push_back(&partial);
    std::vector<int64_t> scalars;
    if (kind == MixGateKind::Split)
      scalars.push_back(tk::runtime::f32Scalar(postMult));
    if (Status s = ctx->run(kernels[0], tensors, stream, scalars); !s.isOk())
      return s;
  }
  tk_tensor s1 = withUnitDim(gradScale, 0), b1 = withUnitDim(gradBase, 0);
  return ctx->run(kernels[1], {&partial, &s1, &b1}, stream);
}
} // namespace

extern "C" tk_status tk_mhc_pre_split_mixes_fwd(tk_context ctx, const tk_tensor *input_mixes, const tk_tensor *scale,
                                                const tk_tensor *base, float post_mult_value, float pre_eps,
                                                tk_tensor *pre, tk_tensor *post, tk_tensor *comb, tk_stream stream) {
  const char *op = "tk_mhc_pre_split_mixes_fwd";
  return tk::kernels::guardCall(
      op, {{"input_mixes", input_mixes}, {"scale", scale}, {"base", base}},
      {{"pre", pre}, {"post", post}, {"comb", comb}}, [&] {
        Arguments args(op);
        args.require(ctx != nullptr, "ctx is null");
        args.tensor("pre", pre, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        bindLogits(args, MixGateKind::Split, "input_mixes", input_mixes);
        args.tensor("scale", scale, {3}, {TK_F32}, Layout::Contiguous);
        args.tensor("base", base, {"m"}, {TK_F32}, Layout::Contiguous);
        args.tensor("post", post, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("comb", comb, {"T", "n", "n"}, {TK_F32}, Layout::Contiguous);
        Status status = Status::ok();
        if (!checkLimits(op, args, MixGateKind::Split, post_mult_value, pre_eps, false, status))
          return tk::runtime::report(status);
        if (args["T"] == 0)
          return tk::runtime::report(Status::ok());
        MixGateConfig c;
        c.kind = MixGateKind::Split, c.streams = args["n"];
        tk_tensor s1 = withUnitDim(scale, 0), b1 = withUnitDim(base, 0), c2 = mergedLastTwo(comb);
        return tk::runtime::report(runScheduled(
            ctx, mixGateSchedule(c.kind, false), TK_PROGRAM(buildMixGate), c, {input_mixes, &s1, &b1, pre, post, &c2},
            stream, {tk::runtime::f32Scalar(post_mult_value), tk::runtime::f32Scalar(pre_eps)}));
      });
}

extern "C" tk_status tk_mhc_pre_split_mixes_bwd(tk_context ctx, const tk_tensor *grad_pre, const tk_tensor *grad_post,
                                                const tk_tensor *grad_comb, const tk_tensor *input_mixes,
                                                const tk_tensor *post, const tk_tensor *scale, const tk_tensor *base,
                                                float post_mult_value, tk_tensor *grad_input, tk_tensor *grad_scale,
                                                tk_tensor *grad_base, tk_stream stream) {
  const char *op = "tk_mhc_pre_split_mixes_bwd";
  return tk::kernels::guardCall(
      op,
      {{"grad_pre", grad_pre},
       {"grad_post", grad_post},
       {"grad_comb", grad_comb},
       {"input_mixes", input_mixes},
       {"post", post},
       {"scale", scale},
       {"base", base}},
      {{"grad_input", grad_input}, {"grad_scale", grad_scale}, {"grad_base", grad_base}}, [&] {
        Arguments args(op);
        args.require(ctx != nullptr, "ctx is null");
        args.tensor("grad_pre", grad_pre, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_post", grad_post, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_comb", grad_comb, {"T", "n", "n"}, {TK_F32}, Layout::Contiguous);
        bindLogits(args, MixGateKind::Split, "input_mixes", input_mixes);
        args.tensor("post", post, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("scale", scale, {3}, {TK_F32}, Layout::Contiguous);
        args.tensor("base", base, {"m"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_input", grad_input, {"T", "m"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_scale", grad_scale, {3}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_base", grad_base, {"m"}, {TK_F32}, Layout::Contiguous);
        Status status = Status::ok();
        if (!checkLimits(op, args, MixGateKind::Split, post_mult_value, 0.0f, true, status))
          return tk::runtime::report(status);
        tk_tensor s1 = withUnitDim(scale, 0), b1 = withUnitDim(base, 0), gc = mergedLastTwo(grad_comb);
        return tk::runtime::report(runBackward(ctx, MixGateKind::Split, args,
                                               {grad_pre, grad_post, &gc, input_mixes, post, &s1, &b1, grad_input},
                                               *grad_input, grad_scale, grad_base, post_mult_value, stream));
      });
}

extern "C" tk_status tk_mhc_head_compute_mix_fwd(tk_context ctx, const tk_tensor *input_mix, const tk_tensor *scale,
                                                 const tk_tensor *base, float pre_eps, tk_tensor *out,
                                                 tk_stream stream) {
  const char *op = "tk_mhc_head_compute_mix_fwd";
  return tk::kernels::guardCall(op, {{"input_mix", input_mix}, {"scale", scale}, {"base", base}}, {{"out", out}}, [&] {
    Arguments args(op);
    args.require(ctx != nullptr, "ctx is null");
    args.tensor("out", out, {"T", "n"}, {TK_F32}, Layout::Contiguous);
    bindLogits(args, MixGateKind::Head, "input_mix", input_mix);
    args.tensor("scale", scale, {1}, {TK_F32}, Layout::Contiguous);
    args.tensor("base", base, {"n"}, {TK_F32}, Layout::Contiguous);
    Status status = Status::ok();
    if (!checkLimits(op, args, MixGateKind::Head, 1.0f, pre_eps, false, status))
      return tk::runtime::report(status);
    if (args["T"] == 0)
      return tk::runtime::report(Status::ok());
    MixGateConfig c;
    c.kind = MixGateKind::Head, c.streams = args["n"];
    tk_tensor s1 = withUnitDim(scale, 0), b1 = withUnitDim(base, 0);
    return tk::runtime::report(runScheduled(ctx, mixGateSchedule(c.kind, false), TK_PROGRAM(buildMixGate), c,
                                            {input_mix, &s1, &b1, out}, stream, {tk::runtime::f32Scalar(pre_eps)}));
  });
}

extern "C" tk_status tk_mhc_head_compute_mix_bwd(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *input_mix,
                                                 const tk_tensor *scale, const tk_tensor *base, tk_tensor *grad_input,
                                                 tk_tensor *grad_scale, tk_tensor *grad_base, tk_stream stream) {
  const char *op = "tk_mhc_head_compute_mix_bwd";
  return tk::kernels::guardCall(
      op, {{"grad_out", grad_out}, {"input_mix", input_mix}, {"scale", scale}, {"base", base}},
      {{"grad_input", grad_input}, {"grad_scale", grad_scale}, {"grad_base", grad_base}}, [&] {
        Arguments args(op);
        args.require(ctx != nullptr, "ctx is null");
        args.tensor("grad_out", grad_out, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        bindLogits(args, MixGateKind::Head, "input_mix", input_mix);
        args.tensor("scale", scale, {1}, {TK_F32}, Layout::Contiguous);
        args.tensor("base", base, {"n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_input", grad_input, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_scale", grad_scale, {1}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_base", grad_base, {"n"}, {TK_F32}, Layout::Contiguous);
        Status status = Status::ok();
        if (!checkLimits(op, args, MixGateKind::Head, 1.0f, 0.0f, true, status))
          return tk::runtime::report(status);
        tk_tensor s1 = withUnitDim(scale, 0), b1 = withUnitDim(base, 0);
        return tk::runtime::report(runBackward(ctx, MixGateKind::Head, args,
                                               {grad_out, input_mix, &s1, &b1, grad_input}, *grad_input, grad_scale,
                                               grad_base, 1.0f, stream));
      });
}

TK_REGISTER_OPERATORS(mix_gates) {
  for (MixGateKind kind : {MixGateKind::Split, MixGateKind::Head})
    for (bool backward : {false, true}) {
      registerSchedule(mixGateSchedule(kind, backward));
      auto variant = [&](MixGateStage stage, int64_t n) {
        MixGateConfig c;
        c.kind = kind, c.stage = stage, c.streams = n;
        return KernelVariant{mixGateName(kind, backward) + (stage == MixGateStage::Reduce ? "_reduce" : "") + ".n" +
                                 std::to_string(n),
                             scheduledFactory(mixGateSchedule(kind, backward), TK_PROGRAM(buildMixGate), c)};
      };
      std::vector<KernelVariant> variants = {variant(backward ? MixGateStage::Backward : MixGateStage::Forward, 4)};
      if (backward)
        variants.push_back(variant(MixGateStage::Reduce, 4));
      const char *summary =
          kind == MixGateKind::Split
              ? (backward ? "the logits' gradient, and scale's and base's from per-CTA partials summed in a fixed order"
                          : "pre = sigmoid(u s + b) + eps, post = p sigmoid(u s + b), comb = u s + b")
              : (backward ? "the logits' gradient, and scale's and base's from per-CTA partials summed in a fixed order"
                          : "sigmoid(u s + b) + eps per stream");
      registerOperator({mixGateName(kind, backward), "mhc", "tk_" + mixGateName(kind, backward), summary, variants});
    }
}
