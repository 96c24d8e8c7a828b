//===- streams_api.cpp - tk_expand_to_mhc_*, tk_mhc_pre_apply_mix_*, tk_mhc_post_* ===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/mhc/streams.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::mhc;

namespace {
// The kernels unroll their loops over the streams (post's backward carries
// n (n + 1) partial sums); the spec's stream mixes stop at 8 (6.3).
constexpr int64_t kMaxStreams = 8;

/// What every entry point checks once its contract holds: n in [1, 8] and
/// T n within the kernel's i32 rows. `done` is set when there is nothing to
/// compute (T or H zero).
Status streamLimits(const char *op, const Arguments &args, bool &done) {
  const int64_t t = args["T"], n = args["n"], h = args["H"];
  if (n < 1 || n > kMaxStreams)
    return Status::unsupported(std::string(op) + ": n = " + std::to_string(n) + " streams; 1 to " +
                               std::to_string(kMaxStreams) + " are supported");
  if (t * n > std::numeric_limits<int32_t>::max() || h > std::numeric_limits<int32_t>::max())
    return Status::unsupported(std::string(op) + ": T n = " + std::to_string(t * n) +
                               " rows of H = " + std::to_string(h) + " exceed the kernel's i32 indices");
  done = t == 0 || h == 0;
  return Status::ok();
}

tk_status runStreams(const char *op, Arguments &args, tk_context ctx, StreamConfig c,
                     const std::vector<const tk_tensor *> &tensors, tk_stream stream) {
  if (!args.ok())
    return tk::runtime::report(args.status());
  bool done = false;
  if (Status s = streamLimits(op, args, done); !s.isOk() || done)
    return tk::runtime::report(s);
  c.streams = args["n"], c.hidden = args["H"];
  return tk::runtime::report(
      runScheduled(ctx, streamSchedule(c.op), TK_PROGRAM(buildStreamKernel), c, tensors, stream));
}
} // namespace

extern "C" tk_status tk_expand_to_mhc_fwd(tk_context ctx, const tk_tensor *hidden, tk_tensor *out, tk_stream stream) {
  return tk::kernels::guardCall("tk_expand_to_mhc_fwd", {{"hidden", hidden}}, {{"out", out}}, [&] {
    Arguments args("tk_expand_to_mhc_fwd");
    args.require(ctx != nullptr, "ctx is null");
    args.tensor("hidden", hidden, {"T", "H"}, {TK_BF16}, Layout::Contiguous);
    args.tensor("out", out, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
    if (!args.ok())
      return tk::runtime::report(args.status());
    tk_tensor h3 = withUnitDim(hidden, 1);
    return runStreams("tk_expand_to_mhc_fwd", args, ctx, {StreamOp::ExpandFwd}, {&h3, out}, stream);
  });
}

extern "C" tk_status tk_expand_to_mhc_bwd(tk_context ctx, const tk_tensor *grad_out, tk_tensor *grad_hidden,
                                          tk_stream stream) {
  return tk::kernels::guardCall("tk_expand_to_mhc_bwd", {{"grad_out", grad_out}}, {{"grad_hidden", grad_hidden}}, [&] {
    Arguments args("tk_expand_to_mhc_bwd");
    args.require(ctx != nullptr, "ctx is null");
    args.tensor("grad_out", grad_out, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
    args.tensor("grad_hidden", grad_hidden, {"T", "H"}, {TK_BF16}, Layout::Contiguous);
    if (!args.ok())
      return tk::runtime::report(args.status());
    tk_tensor g3 = withUnitDim(grad_hidden, 1);
    return runStreams("tk_expand_to_mhc_bwd", args, ctx, {StreamOp::ExpandBwd}, {grad_out, &g3}, stream);
  });
}

extern "C" tk_status tk_mhc_pre_apply_mix_fwd(tk_context ctx, const tk_tensor *x, const tk_tensor *mix, tk_tensor *out,
                                              tk_stream stream) {
  return tk::kernels::guardCall("tk_mhc_pre_apply_mix_fwd", {{"x", x}, {"mix", mix}}, {{"out", out}}, [&] {
    Arguments args("tk_mhc_pre_apply_mix_fwd");
    args.require(ctx != nullptr, "ctx is null");
    args.tensor("x", x, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
    args.tensor("mix", mix, {"T", "n"}, {TK_F32}, Layout::Contiguous);
    args.tensor("out", out, {"T", "H"}, {TK_BF16}, Layout::Contiguous);
    if (!args.ok())
      return tk::runtime::report(args.status());
    tk_tensor m3 = withUnitDim(mix, 2), o3 = withUnitDim(out, 1);
    return runStreams("tk_mhc_pre_apply_mix_fwd", args, ctx, {StreamOp::ApplyMixFwd}, {x, &m3, &o3}, stream);
  });
}

extern "C" tk_status tk_mhc_pre_apply_mix_bwd(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *x,
                                              const tk_tensor *mix, int accumulate, tk_tensor *grad_x,
                                              tk_tensor *grad_mix, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_mhc_pre_apply_mix_bwd", {{"grad_out", grad_out}, {"x", x}, {"mix", mix}},
      {{"grad_x", grad_x}, {"grad_mix", grad_mix}}, [&] {
        Arguments args("tk_mhc_pre_apply_mix_bwd");
        args.require(ctx != nullptr, "ctx is null");
        args.tensor("grad_out", grad_out, {"T", "H"}, {TK_BF16}, Layout::Contiguous);
        args.tensor("x", x, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
        args.tensor("mix", mix, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_x", grad_x, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
        args.tensor("grad_mix", grad_mix, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        args.require(accumulate == 0 || accumulate == 1,
                     "accumulate must be 0 or 1, got " + std::to_string(accumulate));
        if (!args.ok())
          return tk::runtime::report(args.status());
        tk_tensor g3 = withUnitDim(grad_out, 1), m3 = withUnitDim(mix, 2), dm3 = withUnitDim(grad_mix, 2);
        StreamConfig c{StreamOp::ApplyMixBwd};
        c.accumulate = accumulate != 0;
        return runStreams("tk_mhc_pre_apply_mix_bwd", args, ctx, c, {&g3, x, &m3, grad_x, &dm3}, stream);
      });
}

extern "C" tk_status tk_mhc_post_fwd(tk_context ctx, const tk_tensor *x, const tk_tensor *residual,
                                     const tk_tensor *post_mix, const tk_tensor *comb_mix, tk_tensor *out,
                                     tk_stream stream) {
  return tk::kernels::guardCall("tk_mhc_post_fwd",
                                {{"x", x}, {"residual", residual}, {"post_mix", post_mix}, {"comb_mix", comb_mix}},
                                {{"out", out}}, [&] {
                                  Arguments args("tk_mhc_post_fwd");
                                  args.require(ctx != nullptr, "ctx is null");
                                  args.tensor("x", x, {"T", "H"}, {TK_BF16}, Layout::Contiguous);
                                  args.tensor("residual", residual, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
                                  args.tensor("post_mix", post_mix, {"T", "n"}, {TK_F32}, Layout::Contiguous);
                                  args.tensor("comb_mix", comb_mix, {"T", "n", "n"}, {TK_F32}, Layout::Contiguous);
                                  args.tensor("out", out, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
                                  if (!args.ok())
                                    return tk::runtime::report(args.status());
                                  tk_tensor x3 = withUnitDim(x, 1), p3 = withUnitDim(post_mix, 2);
                                  return runStreams("tk_mhc_post_fwd", args, ctx, {StreamOp::PostFwd},
                                                    {&x3, residual, &p3, comb_mix, out}, stream);
                                });
}

extern "C" tk_status tk_mhc_post_bwd(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *x,
                                     const tk_tensor *residual, const tk_tensor *post_mix, const tk_tensor *comb_mix,
                                     tk_tensor *grad_x, tk_tensor *grad_residual, tk_tensor *grad_post,
                                     tk_tensor *grad_comb, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_mhc_post_bwd",
      {{"grad_out", grad_out}, {"x", x}, {"residual", residual}, {"post_mix", post_mix}, {"comb_mix", comb_mix}},
      {{"grad_x", grad_x}, {"grad_residual", grad_residual}, {"grad_post", grad_post}, {"grad_comb", grad_comb}}, [&] {
        Arguments args("tk_mhc_post_bwd");
        args.require(ctx != nullptr, "ctx is null");
        args.tensor("grad_out", grad_out, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
        args.tensor("x", x, {"T", "H"}, {TK_BF16}, Layout::Contiguous);
        args.tensor("residual", residual, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
        args.tensor("post_mix", post_mix, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("comb_mix", comb_mix, {"T", "n", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_x", grad_x, {"T", "H"}, {TK_BF16}, Layout::Contiguous);
        args.tensor("grad_residual", grad_residual, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
        args.tensor("grad_post", grad_post, {"T", "n"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_comb", grad_comb, {"T", "n", "n"}, {TK_F32}, Layout::Contiguous);
        if (!args.ok())
          return tk::runtime::report(args.status());
        tk_tensor x3 = withUnitDim(x, 1), p3 = withUnitDim(post_mix, 2), dx3 = withUnitDim(grad_x, 1),
                  dp3 = withUnitDim(grad_post, 2);
        return runStreams("tk_mhc_post_bwd", args, ctx, {StreamOp::PostBwd},
                          {grad_out, &x3, residual, &p3, comb_mix, &dx3, grad_residual, &dp3, grad_comb}, stream);
      });
}

TK_REGISTER_OPERATORS(streams) {
  struct Entry {
    StreamOp op;
    const char *summary;
  };
  const Entry entries[] = {
      {StreamOp::ExpandFwd, "every one of n residual streams a copy of the hidden row"},
      {StreamOp::ExpandBwd, "the n streams' gradients summed into the hidden row's, in order of the streams"},
      {StreamOp::ApplyMixFwd, "the layer input: the n streams weighted per token, fma in order of the streams"},
      {StreamOp::ApplyMixBwd, "the streams' gradient (optionally accumulated into a buffer) and the mix's"},
      {StreamOp::PostFwd, "new streams: post x layer output plus comb^T x old streams, fma in order"},
      {StreamOp::PostBwd, "the gradients of the layer output, the old streams, post and comb"},
  };
  for (const Entry &e : entries) {
    registerSchedule(streamSchedule(e.op));
    auto variant = [&](int64_t n, int64_t h, bool acc) {
      StreamConfig c{e.op};
      c.streams = n, c.hidden = h, c.accumulate = acc;
      return KernelVariant{std::string(streamOpName(e.op)) + ".n" + std::to_string(n) + ".h" + std::to_string(h) +
                               (acc ? ".acc" : ""),
                           scheduledFactory(streamSchedule(e.op), TK_PROGRAM(buildStreamKernel), c)};
    };
    std::vector<KernelVariant> variants = {variant(4, 7168, false), variant(4, 1280, false)};
    if (e.op == StreamOp::ApplyMixBwd)
      variants.push_back(variant(4, 7168, true));
    registerOperator({streamOpName(e.op), "mhc", std::string("tk_") + streamOpName(e.op), e.summary, variants});
  }
}
