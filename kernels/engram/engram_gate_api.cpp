//===- engram_gate_api.cpp - tk_engram_gate_fwd, tk_engram_grad_w_reduce (4.3, 4.5) ===//
#include "kernels/common/arguments.h"
#include "kernels/common/validate.h"
#include "kernels/engram/gate_forward.h"
#include "kernels/engram/grad_w_reduce.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

#include <cmath>
#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::engram;

namespace {
constexpr int64_t kMaxHidden = 32768; // 64 columns per thread at 512 threads

/// `t` (rows, cols) seen as (rows, 1, cols): the kernel's 3-D view of v.
tk_tensor withUnitMiddle(const tk_tensor *t) {
  tk_tensor v = *t;
  v.ndim = 3;
  v.shape[2] = t->shape[1], v.strides[2] = t->strides[1];
  v.shape[1] = 1, v.strides[1] = t->shape[1];
  return v;
}

/// `t` (rows, cols) seen as (rows, cols, 1), or (1, rows, cols).
tk_tensor withUnitLast(const tk_tensor *t) {
  tk_tensor v = *t;
  v.ndim = 3, v.shape[2] = 1, v.strides[2] = 1;
  return v;
}
tk_tensor withUnitFirst(const tk_tensor *t) {
  tk_tensor v = *t;
  v.ndim = 3;
  v.shape[2] = t->shape[1], v.strides[2] = t->strides[1];
  v.shape[1] = t->shape[0], v.strides[1] = t->strides[0];
  v.shape[0] = 1, v.strides[0] = t->shape[0] * t->strides[0];
  return v;
}
} // namespace

static tk_status tk_engram_gate_fwd_unguarded(tk_context ctx, const tk_tensor *hidden_states, const tk_tensor *k,
                                              const tk_tensor *v, const tk_tensor *weight_fused, float eps,
                                              float clamp_value, tk_tensor *out, tk_tensor *dot, tk_tensor *gate_score,
                                              tk_tensor *rstd_x, tk_tensor *rstd_k, tk_stream stream) {
  const char *op = "tk_engram_gate_fwd";
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("hidden_states", hidden_states, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("k", k, {"T", "n", "H"}, {TK_BF16}, Layout::UnitInnerStride);
  args.tensor("v", v, {"T", "H"}, {TK_BF16}, Layout::UnitInnerStride);
  args.tensor("weight_fused", weight_fused, {"n", "H"}, {TK_F32}, Layout::Contiguous);
  args.tensor("out", out, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
  tk_tensor *stats[] = {dot, gate_score, rstd_x, rstd_k};
  const char *statNames[] = {"dot", "gate_score", "rstd_x", "rstd_k"};
  const int given = (dot != nullptr) + (gate_score != nullptr) + (rstd_x != nullptr) + (rstd_k != nullptr);
  args.require(given == 0 || given == 4,
               "dot, gate_score, rstd_x and rstd_k are all given (save_for_backward) or all null, got " +
                   std::to_string(given) + " of 4");
  for (int i = 0; i < 4 && given == 4; ++i)
    args.tensor(statNames[i], stats[i], {"T", "n"}, {TK_F32}, Layout::Contiguous);
  args.require(std::isfinite(eps) && eps >= 0, "eps must be finite and non-negative, got " + std::to_string(eps));
  args.require(std::isfinite(clamp_value) && clamp_value >= 0,
               "clamp_value must be finite and non-negative, got " + std::to_string(clamp_value));
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t t = args["T"], n = args["n"], h = args["H"];
  if (h > kMaxHidden)
    return tk::runtime::report(Status::unsupported(std::string(op) + ": H = " + std::to_string(h) +
                                                   " is over the " + std::to_string(kMaxHidden) +
                                                   " columns one CTA holds"));
  if (t * n > std::numeric_limits<int32_t>::max())
    return tk::runtime::report(
        Status::unsupported(std::string(op) + ": T n = " + std::to_string(t * n) + " rows exceed the grid"));
  if (t == 0 || n == 0 || h == 0)
    return tk::runtime::report(Status::ok());
  GateForwardConfig c;
  c.hidden = h, c.save = given == 4;
  tk_tensor v3 = withUnitMiddle(v), wf3 = withUnitFirst(weight_fused);
  std::vector<const tk_tensor *> tensors = {hidden_states, k, &v3, &wf3, out};
  tk_tensor saved[4];
  for (int i = 0; i < 4 && c.save; ++i) {
    saved[i] = withUnitLast(stats[i]);
    tensors.push_back(&saved[i]);
  }
  const float invSqrtH = (float)(1.0 / std::sqrt((double)h)); // in double, rounded once (as the reference)
  return tk::runtime::report(runScheduled(ctx, gateForwardSchedule(), buildGateForward, c, tensors, stream,
                                          {tk::runtime::f32Scalar(eps), tk::runtime::f32Scalar(clamp_value),
                                           tk::runtime::f32Scalar(invSqrtH)}));
}

extern "C" tk_status tk_engram_gate_fwd(tk_context ctx, const tk_tensor *hidden_states, const tk_tensor *k,
                                        const tk_tensor *v, const tk_tensor *weight_fused, float eps,
                                        float clamp_value, tk_tensor *out, tk_tensor *dot, tk_tensor *gate_score,
                                        tk_tensor *rstd_x, tk_tensor *rstd_k, tk_stream stream) {
  return tk::runtime::guardEntry("tk_engram_gate_fwd", [&] {
    return tk_engram_gate_fwd_unguarded(ctx, hidden_states, k, v, weight_fused, eps, clamp_value, out, dot,
                                        gate_score, rstd_x, rstd_k, stream);
  });
}

static tk_status tk_engram_grad_w_reduce_unguarded(tk_context ctx, const tk_tensor *grad_w_partial,
                                                   const tk_tensor *weight_hidden, const tk_tensor *weight_embed,
                                                   tk_tensor *grad_weight_hidden, tk_tensor *grad_weight_embed,
                                                   tk_stream stream) {
  Arguments args("tk_engram_grad_w_reduce");
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("grad_w_partial", grad_w_partial, {"P", "n", "H"}, {TK_F32}, Layout::Contiguous);
  args.tensor("weight_hidden", weight_hidden, {"n", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("weight_embed", weight_embed, {"n", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("grad_weight_hidden", grad_weight_hidden, {"n", "H"}, {TK_F32}, Layout::Contiguous);
  args.tensor("grad_weight_embed", grad_weight_embed, {"n", "H"}, {TK_F32}, Layout::Contiguous);
  if (args.ok())
    args.require(grad_weight_hidden->data != grad_weight_embed->data,
                 "grad_weight_hidden and grad_weight_embed are the same buffer (each is updated in place)");
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t p = args["P"], cols = args["n"] * args["H"];
  if (p == 0 || cols == 0) // nothing to add
    return tk::runtime::report(Status::ok());
  tk_tensor part = *grad_w_partial;
  part.ndim = 2, part.shape[0] = p, part.shape[1] = cols, part.strides[0] = cols, part.strides[1] = 1;
  auto row = [&](const tk_tensor *t) {
    tk_tensor v = *t;
    v.ndim = 2, v.shape[0] = 1, v.shape[1] = cols, v.strides[0] = cols, v.strides[1] = 1;
    return v;
  };
  tk_tensor wh = row(weight_hidden), we = row(weight_embed), gh = row(grad_weight_hidden),
            ge = row(grad_weight_embed);
  return tk::runtime::report(runScheduled(ctx, gradWReduceSchedule(), buildGradWReduce, GradWReduceConfig{},
                                          {&part, &wh, &we, &gh, &ge}, stream));
}

extern "C" tk_status tk_engram_grad_w_reduce(tk_context ctx, const tk_tensor *grad_w_partial,
                                             const tk_tensor *weight_hidden, const tk_tensor *weight_embed,
                                             tk_tensor *grad_weight_hidden, tk_tensor *grad_weight_embed,
                                             tk_stream stream) {
  return tk::runtime::guardEntry("tk_engram_grad_w_reduce", [&] {
    return tk_engram_grad_w_reduce_unguarded(ctx, grad_w_partial, weight_hidden, weight_embed, grad_weight_hidden,
                                             grad_weight_embed, stream);
  });
}

TK_REGISTER_OPERATORS(engram_gate) {
  registerSchedule(gradWReduceSchedule());
  registerOperator({"engram_grad_w_reduce",
                    "engram",
                    "tk_engram_grad_w_reduce",
                    "the gate's weight gradients: partial rows summed in a fixed order, times the other weight, added",
                    {{"engram_grad_w_reduce",
                      scheduledFactory(gradWReduceSchedule(), buildGradWReduce, GradWReduceConfig{})}}});
  registerSchedule(gateForwardSchedule());
  auto variant = [](int64_t h, bool save) {
    GateForwardConfig c;
    c.hidden = h, c.save = save;
    return KernelVariant{"engram_gate_fwd.h" + std::to_string(h) + (save ? ".save" : ""),
                         scheduledFactory(gateForwardSchedule(), buildGateForward, c)};
  };
  registerOperator({"engram_gate_fwd",
                    "engram",
                    "tk_engram_gate_fwd",
                    "the gate's RMS-normalised dot of x and k per stream, sigmoid of its signed square root, x + g v",
                    {variant(4096, true), variant(7168, true), variant(7168, false)}});
}
