//===- topk_gate_api.cpp - tk_topk_gate (moe.md 2.1): contract, launch ----===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "kernels/moe/topk_gate.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::moe;

namespace {

/// The widest expert count a CTA's tile holds (4 tokens of 1024 scores).
constexpr int64_t kMaxExperts = 1024;

} // namespace

static tk_status tk_topk_gate_unguarded(tk_context ctx, const tk_tensor *scores, int32_t num_topk,
                                        tk_tensor *topk_idx, tk_stream stream) {
  const char *op = "tk_topk_gate";
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("scores", scores, {"N", "E"}, {TK_F32}, Layout::Contiguous);
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t e = args["E"], k = num_topk;
  args.require(k >= 1 && k <= e, "num_topk must be in [1, E = " + std::to_string(e) + "], got " + std::to_string(k));
  args.define("K", k, "num_topk");
  args.tensor("topk_idx", topk_idx, {"N", "K"}, {TK_I64}, Layout::Contiguous);
  if (!args.ok())
    return tk::runtime::report(args.status());
  if (e > kMaxExperts)
    return tk::runtime::report(Status::unsupported(std::string(op) + ": at most " + std::to_string(kMaxExperts) +
                                                   " experts, got " + std::to_string(e)));
  if (args["N"] == 0)
    return tk::runtime::report(Status::ok());
  if (Status s = checkFiniteIfAsked(ctx, "tk_topk_gate", "scores", scores, stream); !s.isOk())
    return tk::runtime::report(s);
  TopkGateConfig config;
  config.experts = e;
  config.topk = k;
  return tk::runtime::report(
      runScheduled(ctx, topkGateSchedule(), TK_PROGRAM(buildTopkGate), config, {scores, topk_idx}, stream));
}

extern "C" tk_status tk_topk_gate(tk_context ctx, const tk_tensor *scores, int32_t num_topk, tk_tensor *topk_idx,
                                  tk_stream stream) {
  return tk::kernels::guardCall("tk_topk_gate", {{"scores", scores}}, {{"topk_idx", topk_idx}},
                                [&] { return tk_topk_gate_unguarded(ctx, scores, num_topk, topk_idx, stream); });
}

TK_REGISTER_OPERATORS(topk_gate) {
  auto variant = [](const std::string &name, TopkGateConfig c) {
    return KernelVariant{name, scheduledFactory(topkGateSchedule(), TK_PROGRAM(buildTopkGate), c)};
  };
  registerSchedule(topkGateSchedule());
  registerOperator({"topk_gate", "moe", "tk_topk_gate",
                    "the K best experts per token (greater score, then lower index), int64 indices",
                    {variant("topk_gate.e72.k6", {72, 6}), variant("topk_gate.e256.k8", {256, 8}),
                     variant("topk_gate.e16.k6", {16, 6})}});
}
