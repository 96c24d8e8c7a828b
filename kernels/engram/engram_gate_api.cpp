//===- engram_gate_api.cpp - tk_engram_gate_fwd, _bwd, _grad_w_reduce (4.3-4.5) ===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/engram/gate_backward.h"
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
constexpr int64_t kMaxHidden = 32768;        // 64 columns per thread at 512 threads
constexpr int64_t kMaxHiddenBackward = 8192; // 16 columns per thread at 512 threads
constexpr int64_t kMaxStreamsBackward = 16;  // grad_v's sum over the streams is unrolled

constexpr int64_t kMaxGridY = 65535; // CUDA's limit on a grid's second dimension

/// Whether `rowsBytes` of shared rows fit the call's device: sm_86 and
/// sm_89 run sm_80's code with 99 KB per block where sm_80 has 163 KB.
/// Always on the CPU path.
bool sharedRowsFit(tk_context ctx, const tk::compiler::Target &target, int64_t rowsBytes, int64_t scratch = 4096) {
  return gateSharedRowsFit(rowsBytes, target.maxSharedBytes ? ctx->device.maxSharedPerBlockOptin : 0, scratch);
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
    return tk::runtime::report(Status::unsupported(std::string(op) + ": H = " + std::to_string(h) + " is over the " +
                                                   std::to_string(kMaxHidden) + " columns one CTA holds"));
  if (t * n > std::numeric_limits<int32_t>::max())
    return tk::runtime::report(
        Status::unsupported(std::string(op) + ": T n = " + std::to_string(t * n) + " rows exceed the grid"));
  if (t == 0 || n == 0 || h == 0)
    return tk::runtime::report(Status::ok());
  GateForwardConfig c;
  c.hidden = h, c.save = given == 4;
  tk_tensor v3 = withUnitDim(v, 1), wf3 = withUnitDim(weight_fused, 0);
  std::vector<const tk_tensor *> tensors = {hidden_states, k, &v3, &wf3, out};
  tk_tensor saved[4];
  for (int i = 0; i < 4 && c.save; ++i) {
    saved[i] = withUnitDim(stats[i], 2);
    tensors.push_back(&saved[i]);
  }
  const float invSqrtH = (float)(1.0 / std::sqrt((double)h)); // in double, rounded once (as the reference)
  // The pipelined default needs 2 x 6 H bytes of shared memory and ceil(T /
  // rows) token groups on the grid's second dimension; where either does
  // not fit, one CTA per row (its tokens on the first dimension) runs it.
  auto fit = [&](GateForwardConfig &cfg, const tk::compiler::Target &target) {
    if (!cfg.stages && (!sharedRowsFit(ctx, target, cfg.numStages() * 6 * h) ||
                        (cfg.numStages() > 1 && (t + cfg.numRows() - 1) / cfg.numRows() > kMaxGridY)))
      cfg.stages = 1;
  };
  return tk::runtime::report(runScheduled(
      ctx, gateForwardSchedule(), TK_PROGRAM(buildGateForward), c, tensors, stream,
      {tk::runtime::f32Scalar(eps), tk::runtime::f32Scalar(clamp_value), tk::runtime::f32Scalar(invSqrtH)}, fit));
}

extern "C" tk_status tk_engram_gate_fwd(tk_context ctx, const tk_tensor *hidden_states, const tk_tensor *k,
                                        const tk_tensor *v, const tk_tensor *weight_fused, float eps, float clamp_value,
                                        tk_tensor *out, tk_tensor *dot, tk_tensor *gate_score, tk_tensor *rstd_x,
                                        tk_tensor *rstd_k, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_engram_gate_fwd", {{"hidden_states", hidden_states}, {"k", k}, {"v", v}, {"weight_fused", weight_fused}},
      {{"out", out}, {"dot", dot}, {"gate_score", gate_score}, {"rstd_x", rstd_x}, {"rstd_k", rstd_k}}, [&] {
        return tk_engram_gate_fwd_unguarded(ctx, hidden_states, k, v, weight_fused, eps, clamp_value, out, dot,
                                            gate_score, rstd_x, rstd_k, stream);
      });
}

static tk_status tk_engram_gate_bwd_unguarded(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *hidden_states,
                                              const tk_tensor *k, const tk_tensor *v, const tk_tensor *weight_fused,
                                              const tk_tensor *dot, const tk_tensor *gate_score,
                                              const tk_tensor *rstd_x, const tk_tensor *rstd_k, float clamp_value,
                                              tk_tensor *grad_x, tk_tensor *grad_k, tk_tensor *grad_v,
                                              tk_tensor *grad_w_partial, tk_stream stream) {
  const char *op = "tk_engram_gate_bwd";
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("grad_out", grad_out, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("hidden_states", hidden_states, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("k", k, {"T", "n", "H"}, {TK_BF16}, Layout::UnitInnerStride);
  args.tensor("v", v, {"T", "H"}, {TK_BF16}, Layout::UnitInnerStride);
  args.tensor("weight_fused", weight_fused, {"n", "H"}, {TK_F32}, Layout::Contiguous);
  const tk_tensor *stats[] = {dot, gate_score, rstd_x, rstd_k};
  const char *statNames[] = {"dot", "gate_score", "rstd_x", "rstd_k"};
  for (int i = 0; i < 4; ++i)
    args.tensor(statNames[i], stats[i], {"T", "n"}, {TK_F32}, Layout::Contiguous);
  args.tensor("grad_x", grad_x, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("grad_k", grad_k, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("grad_v", grad_v, {"T", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("grad_w_partial", grad_w_partial, {"P", "n", "H"}, {TK_F32}, Layout::Contiguous);
  args.require(std::isfinite(clamp_value) && clamp_value > 0,
               "clamp_value must be finite and positive (the gradient of sqrt at 0 is infinite), got " +
                   std::to_string(clamp_value));
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t t = args["T"], n = args["n"], h = args["H"], p = args["P"];
  if (p < 1)
    return tk::runtime::report(
        Status::invalid(std::string(op) + ": grad_w_partial needs at least one row (P >= 1), got 0"));
  if (h > kMaxHiddenBackward || n > kMaxStreamsBackward)
    return tk::runtime::report(Status::unsupported(
        std::string(op) + ": n = " + std::to_string(n) + ", H = " + std::to_string(h) +
        " is over n <= " + std::to_string(kMaxStreamsBackward) + ", H <= " + std::to_string(kMaxHiddenBackward) +
        " (a CTA holds a stream's rows in registers)"));
  if (p > kMaxGridY)
    return tk::runtime::report(Status::unsupported(std::string(op) + ": P = " + std::to_string(p) +
                                                   " rows of grad_w_partial exceed the grid"));
  if (n == 0 || h == 0)
    return tk::runtime::report(Status::ok());
  // Two kernels: whatever could stop the second is checked before the first writes anything. The places of all
  // the tensors, and grad_v's alignment (its other constraints are those the first kernel's tensors meet).
  tk::compiler::Target target;
  if (Status s = ctx->targetFor({grad_out, hidden_states, k, v, weight_fused, dot, gate_score, rstd_x, rstd_k, grad_x,
                                 grad_k, grad_v, grad_w_partial},
                                target);
      !s.isOk())
    return tk::runtime::report(s);
  const int64_t align = gateRowAlignBytes(h);
  if (t > 0 && reinterpret_cast<uintptr_t>(grad_v->data) % align != 0)
    return tk::runtime::report(Status::invalid(std::string(op) + ": tensor 'grad_v' pointer is not " +
                                               std::to_string(align) + "-byte aligned"));
  const float invSqrtH = (float)(1.0 / std::sqrt((double)h)); // in double, rounded once (as the forward)
  GateBackwardConfig rows;
  rows.stage = GateBackwardConfig::Stage::Rows, rows.hidden = h, rows.streams = n;
  tk_tensor v3 = withUnitDim(v, 1), wf3 = withUnitDim(weight_fused, 0), gv3 = withUnitDim(grad_v, 1), saved[4];
  std::vector<const tk_tensor *> tensors = {grad_out, hidden_states, k, &v3, &wf3};
  for (int i = 0; i < 4; ++i) {
    saved[i] = withUnitDim(stats[i], 2);
    tensors.push_back(&saved[i]);
  }
  if (t == 0) { // no token: zero partial rows, so that grad_w_reduce adds nothing
    GateBackwardConfig zero;
    zero.stage = GateBackwardConfig::Stage::Zero, zero.hidden = h;
    return tk::runtime::report(
        runScheduled(ctx, gateBackwardSchedule(), TK_PROGRAM(buildGateBackward), zero, {grad_w_partial}, stream));
  }
  // The rows kernel's schedule first: with split_v it writes grad_v too, and no value kernel runs.
  if (Status s = gateBackwardSchedule().resolve(ctx, target, rows); !s.isOk())
    return tk::runtime::report(s);
  if (rows.splitV && !gateBackwardSplitsValue(h, n)) // H / n columns not whole 16-byte rows: the value kernel
    rows.splitV = 0;
  // The fused kernel where its buffers pass the device's shared memory or its partials the registers: the rows
  // and value kernels at their heuristic (the other fields were the fused kernel's), logged as such.
  if (rows.fused && (!gateBackwardFusedPartialsFit(rows) ||
                     !sharedRowsFit(ctx, target, gateBackwardFusedBytes(rows), kGateBackwardFusedScratch))) {
    rows = GateBackwardConfig{};
    rows.stage = GateBackwardConfig::Stage::Rows, rows.hidden = h, rows.streams = n;
    tk::runtime::ScheduleChoice choice = ctx->scheduleLog.last(gateBackwardSchedule().name());
    choice.source = "heuristic", choice.schedule = "";
    ctx->scheduleLog.record(gateBackwardSchedule().name(), choice);
  }
  // The default pipeline's 2 x 8 H bytes (10 H with split_v) of shared rows past the device's limit: the loop.
  if (!rows.stages && !sharedRowsFit(ctx, target, rows.numStages() * (rows.splitV ? 10 : 8) * h))
    rows.stages = 1;
  tensors.insert(tensors.end(), {grad_x, grad_k});
  if (rows.splitV || rows.fused)
    tensors.push_back(&gv3);
  tensors.push_back(grad_w_partial);
  // The value kernel's schedule resolved before the rows kernel writes; both kernels made once, for prepare and
  // the runs.
  const bool valueKernel = !rows.splitV && !rows.fused;
  GateBackwardConfig value;
  value.stage = GateBackwardConfig::Stage::Value, value.hidden = h, value.streams = n;
  Status s = valueKernel ? gateBackwardSchedule().resolve(ctx, target, value) : Status::ok();
  if (!s.isOk())
    return tk::runtime::report(s);
  std::vector<tk::runtime::KernelFactory> kernels = {tk::runtime::factoryOf(TK_PROGRAM(buildGateBackward), rows)};
  if (valueKernel) {
    kernels.push_back(tk::runtime::factoryOf(TK_PROGRAM(buildGateBackward), value));
    ctx->prepare(kernels, {grad_out, grad_x});
  }
  s = ctx->run(kernels[0], tensors, stream, {tk::runtime::f32Scalar(clamp_value), tk::runtime::f32Scalar(invSqrtH)});
  if (!s.isOk() || !valueKernel)
    return tk::runtime::report(s);
  return tk::runtime::report(ctx->run(kernels[1], {grad_out, &saved[1], &gv3}, stream));
}

extern "C" tk_status tk_engram_gate_bwd(tk_context ctx, const tk_tensor *grad_out, const tk_tensor *hidden_states,
                                        const tk_tensor *k, const tk_tensor *v, const tk_tensor *weight_fused,
                                        const tk_tensor *dot, const tk_tensor *gate_score, const tk_tensor *rstd_x,
                                        const tk_tensor *rstd_k, float clamp_value, tk_tensor *grad_x,
                                        tk_tensor *grad_k, tk_tensor *grad_v, tk_tensor *grad_w_partial,
                                        tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_engram_gate_bwd",
      {{"grad_out", grad_out},
       {"hidden_states", hidden_states},
       {"k", k},
       {"v", v},
       {"weight_fused", weight_fused},
       {"dot", dot},
       {"gate_score", gate_score},
       {"rstd_x", rstd_x},
       {"rstd_k", rstd_k}},
      {{"grad_x", grad_x}, {"grad_k", grad_k}, {"grad_v", grad_v}, {"grad_w_partial", grad_w_partial}}, [&] {
        return tk_engram_gate_bwd_unguarded(ctx, grad_out, hidden_states, k, v, weight_fused, dot, gate_score, rstd_x,
                                            rstd_k, clamp_value, grad_x, grad_k, grad_v, grad_w_partial, stream);
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
  tk_tensor wh = row(weight_hidden), we = row(weight_embed), gh = row(grad_weight_hidden), ge = row(grad_weight_embed);
  // 16-byte vectors where every tensor allows 4 values per access.
  GradWReduceConfig config;
  auto aligned = [](const tk_tensor &t, uintptr_t bytes) { return reinterpret_cast<uintptr_t>(t.data) % bytes == 0; };
  if (cols % 4 == 0 && aligned(part, 16) && aligned(gh, 16) && aligned(ge, 16) && aligned(wh, 8) && aligned(we, 8))
    config.vector = 4;
  return tk::runtime::report(runScheduled(ctx, gradWReduceSchedule(), TK_PROGRAM(buildGradWReduce), config,
                                          {&part, &wh, &we, &gh, &ge}, stream));
}

extern "C" tk_status tk_engram_grad_w_reduce(tk_context ctx, const tk_tensor *grad_w_partial,
                                             const tk_tensor *weight_hidden, const tk_tensor *weight_embed,
                                             tk_tensor *grad_weight_hidden, tk_tensor *grad_weight_embed,
                                             tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_engram_grad_w_reduce",
      {{"grad_w_partial", grad_w_partial}, {"weight_hidden", weight_hidden}, {"weight_embed", weight_embed}},
      {{"grad_weight_hidden", grad_weight_hidden}, {"grad_weight_embed", grad_weight_embed}}, [&] {
        return tk_engram_grad_w_reduce_unguarded(ctx, grad_w_partial, weight_hidden, weight_embed, grad_weight_hidden,
                                                 grad_weight_embed, stream);
      });
}

TK_REGISTER_OPERATORS(engram_gate) {
  registerSchedule(gradWReduceSchedule());
  GradWReduceConfig vectorized; // what aligned tensors run (any n H a multiple of 4)
  vectorized.vector = 4;
  registerOperator(
      {"engram_grad_w_reduce",
       "engram",
       "tk_engram_grad_w_reduce",
       "the gate's weight gradients: partial rows summed in a fixed order, times the other weight, added",
       {{"engram_grad_w_reduce", scheduledFactory(gradWReduceSchedule(), TK_PROGRAM(buildGradWReduce), vectorized)},
        {"engram_grad_w_reduce.unaligned",
         scheduledFactory(gradWReduceSchedule(), TK_PROGRAM(buildGradWReduce), GradWReduceConfig{})}}});
  registerSchedule(gateBackwardSchedule());
  auto backward = [](GateBackwardConfig::Stage stage, int64_t h, bool splitV = false, bool fused = false,
                     bool sharedPartials = false) {
    GateBackwardConfig c;
    c.stage = stage, c.hidden = h, c.streams = 4, c.splitV = splitV, c.fused = fused;
    c.sharedPartials = sharedPartials;
    const bool rows = stage == GateBackwardConfig::Stage::Rows;
    return KernelVariant{std::string(rows ? "engram_gate_bwd" : "engram_gate_bwd_v") + (splitV ? ".split_v" : "") +
                             (fused ? ".fused" : "") + (sharedPartials ? ".shared_partials" : "") + ".h" +
                             std::to_string(h),
                         scheduledFactory(gateBackwardSchedule(), TK_PROGRAM(buildGateBackward), c),
                         fused ? gateBackwardFusedBytes(c) + kGateBackwardFusedScratch : 0};
  };
  registerOperator(
      {"engram_gate_bwd",
       "engram",
       "tk_engram_gate_bwd",
       "the gate's gradients: per stream rows with the weight gradient carried over a block's tokens, "
       "then grad_v summed over the streams",
       {backward(GateBackwardConfig::Stage::Rows, 4096), backward(GateBackwardConfig::Stage::Rows, 7168),
        backward(GateBackwardConfig::Stage::Value, 7168), backward(GateBackwardConfig::Stage::Rows, 7168, true),
        backward(GateBackwardConfig::Stage::Rows, 4096, false, true),
        backward(GateBackwardConfig::Stage::Rows, 7168, false, true, true)}});
  registerSchedule(gateForwardSchedule());
  auto variant = [](int64_t h, bool save) {
    GateForwardConfig c;
    c.hidden = h, c.save = save;
    return KernelVariant{"engram_gate_fwd.h" + std::to_string(h) + (save ? ".save" : ""),
                         scheduledFactory(gateForwardSchedule(), TK_PROGRAM(buildGateForward), c)};
  };
  registerOperator({"engram_gate_fwd",
                    "engram",
                    "tk_engram_gate_fwd",
                    "the gate's RMS-normalised dot of x and k per stream, sigmoid of its signed square root, x + g v",
                    {variant(4096, true), variant(7168, true), variant(7168, false)}});
}
