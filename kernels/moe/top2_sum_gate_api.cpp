//===- top2_sum_gate_api.cpp - tk_top2_sum_gate (moe.md 2.3) --------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "kernels/moe/top2_sum_gate.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

#include <cstring>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::moe;

namespace {

constexpr int64_t kMaxExperts = 1024; ///< the widest tile a CTA holds

const std::vector<tk_dtype> kBool = {TK_U8, TK_I8};

} // namespace

static tk_status tk_top2_sum_gate_unguarded(tk_context ctx, const tk_tensor *logits, const tk_tensor *bias,
                                            int32_t num_topk, int32_t num_topk_groups, int32_t num_groups,
                                            int32_t use_shared_as_routed, int32_t num_shared_experts,
                                            float routed_scaling_factor, int32_t ep_rank, int32_t num_ep_ranks,
                                            int32_t tp_rank, int32_t num_tp_ranks, tk_scoring scoring,
                                            const tk_tensor *mask, const tk_tensor *fix_routing_mask,
                                            const tk_tensor *to_physical_map, const tk_tensor *logical_count,
                                            tk_tensor *unmapped_topk_idx, tk_tensor *topk_idx, tk_tensor *topk_weights,
                                            tk_stream stream) {
  Arguments args("tk_top2_sum_gate");
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("logits", logits, {"N", "E"}, {TK_F32}, Layout::Contiguous);
  if (args.ok())
    args.tensor("bias", bias, {"E"}, {TK_F32}, Layout::Contiguous);
  args.require(scoring == TK_SCORING_SIGMOID || scoring == TK_SCORING_SQRTSOFTPLUS || scoring == TK_SCORING_SOFTMAX,
               "scoring_func must be sigmoid, sqrtsoftplus or softmax (identity is rejected, as the reference's "
               "host wrapper does), got " +
                   std::to_string((int)scoring));
  args.require((to_physical_map == nullptr) == (logical_count == nullptr),
               "to_physical_map and logical_count are given together or not at all");
  args.require(fix_routing_mask == nullptr || unmapped_topk_idx != nullptr,
               "fix_routing_mask needs unmapped_topk_idx (the ids it reuses)");
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t e = args["E"], s = use_shared_as_routed ? num_shared_experts : 0;
  if (use_shared_as_routed) {
    args.require(s == 1 || s == 2, "num_shared_experts must be 1 or 2 with use_shared_as_routed, got " +
                                       std::to_string(num_shared_experts));
    args.require(s > 0 && num_topk % std::max<int64_t>(s, 1) == 0 &&
                     e % std::max<int64_t>(num_topk / std::max<int64_t>(s, 1), 1) == 0,
                 "use_shared_as_routed needs K % S == 0 and E % (K / S) == 0 (moe.md Q16)");
  }
  Top2SumGateParams p;
  p.tokens = args["N"], p.experts = e, p.topk = num_topk, p.topkGroups = num_topk_groups, p.groups = num_groups;
  p.sharedSlots = s, p.epRank = ep_rank, p.epRanks = num_ep_ranks, p.tpRank = tp_rank, p.tpRanks = num_tp_ranks;
  if (to_physical_map) {
    args.tensor("to_physical_map", to_physical_map, {e + s, "Xp"}, {TK_I32}, Layout::Contiguous);
    args.tensor("logical_count", logical_count, {e + s}, {TK_I32}, Layout::Contiguous);
    if (args.ok())
      p.replicas = args["Xp"], p.physicalMap = static_cast<const int32_t *>(to_physical_map->data);
  }
  if (args.ok()) {
    const std::string problem = top2SumGateProblem(p);
    args.require(problem.empty(), problem);
  }
  if (mask)
    args.tensor("mask", mask, {"N"}, kBool, Layout::Contiguous);
  if (fix_routing_mask)
    args.tensor("fix_routing_mask", fix_routing_mask, {"N"}, kBool, Layout::Contiguous);
  args.define("K", num_topk, "num_topk");
  args.define("P", num_topk + s, "num_topk + shared slots");
  if (unmapped_topk_idx)
    args.tensor("unmapped_topk_idx", unmapped_topk_idx, {"N", "K"}, {TK_I64}, Layout::Strided);
  if (args.ok() && unmapped_topk_idx && args["K"] > 1)
    args.require(unmapped_topk_idx->strides[1] == 1, "unmapped_topk_idx needs an inner stride of 1");
  args.tensor("topk_idx", topk_idx, {"N", "P"}, {TK_I64}, Layout::Contiguous);
  args.tensor("topk_weights", topk_weights, {"N", "P"}, {TK_F32}, Layout::Contiguous);
  if (!args.ok())
    return tk::runtime::report(args.status());
  if (e > kMaxExperts)
    return tk::runtime::report(Status::unsupported("tk_top2_sum_gate: at most " + std::to_string(kMaxExperts) +
                                                   " experts, got " + std::to_string(e)));
  Top2SumGateConfig c;
  c.experts = e, c.groups = num_groups, c.topkGroups = num_topk_groups, c.topk = num_topk, c.shared = s;
  c.scoring = (Scoring)scoring, c.mask = mask != nullptr, c.fixed = fix_routing_mask != nullptr;
  c.unmapped = unmapped_topk_idx != nullptr, c.replicas = p.replicas;
  if (args["N"] == 0)
    return tk::runtime::report(Status::ok());
  const char *op = "tk_top2_sum_gate";
  Status checked = checkFiniteIfAsked(ctx, op, "logits", logits, stream);
  if (checked.isOk() && logical_count)
    checked = checkIndicesIfAsked(ctx, op, "logical_count", logical_count, 1, p.replicas + 1,
                                  "the replicas: to_physical_map's columns", stream);
  if (checked.isOk() && fix_routing_mask) // the stored ids of the rows that reuse them
    checked = checkIndicesIfAsked(ctx, op, "unmapped_topk_idx", unmapped_topk_idx, 0, e, "E, of a fixed row", stream,
                                  fix_routing_mask);
  if (!checked.isOk())
    return tk::runtime::report(checked);
  std::vector<const tk_tensor *> tensors = {logits, bias};
  tk_tensor maskBytes, fixBytes, flatMap;
  if (mask)
    maskBytes = *mask, maskBytes.dtype = TK_U8, tensors.push_back(&maskBytes);
  if (fix_routing_mask)
    fixBytes = *fix_routing_mask, fixBytes.dtype = TK_U8, tensors.push_back(&fixBytes);
  if (to_physical_map) {
    flatMap = flatView(to_physical_map);
    tensors.push_back(&flatMap);
    tensors.push_back(logical_count);
  }
  if (unmapped_topk_idx) // with fix_routing_mask also read: the fixed rows' ids, in place
    tensors.push_back(unmapped_topk_idx);
  tensors.push_back(topk_idx);
  tensors.push_back(topk_weights);
  const int64_t x = p.replicas ? p.replicas - 1 : 0;
  const int64_t tokens = args["N"];
  auto fit = [&](Top2SumGateConfig &config, const tk::compiler::Target &target) {
    const bool heuristic = ctx->scheduleLog.last(top2SumGateSchedule().name()).source == "heuristic";
    if (heuristic && target.computeCapability > 0)
      fitTop2SumGateToTokens(config, tokens, ctx->device.smCount);
  };
  return tk::runtime::report(runScheduled(
      ctx, top2SumGateSchedule(), TK_PROGRAM(buildTop2SumGate), c, tensors, stream,
      {tk::runtime::f32Scalar(routed_scaling_factor), ep_rank, (e + x) / num_ep_ranks, num_tp_ranks, tp_rank}, fit));
}

extern "C" tk_status tk_top2_sum_gate(tk_context ctx, const tk_tensor *logits, const tk_tensor *bias, int32_t num_topk,
                                      int32_t num_topk_groups, int32_t num_groups, int32_t use_shared_as_routed,
                                      int32_t num_shared_experts, float routed_scaling_factor, int32_t ep_rank,
                                      int32_t num_ep_ranks, int32_t tp_rank, int32_t num_tp_ranks, tk_scoring scoring,
                                      const tk_tensor *mask, const tk_tensor *fix_routing_mask,
                                      const tk_tensor *to_physical_map, const tk_tensor *logical_count,
                                      tk_tensor *unmapped_topk_idx, tk_tensor *topk_idx, tk_tensor *topk_weights,
                                      tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_top2_sum_gate",
      {{"logits", logits},
       {"bias", bias},
       {"mask", mask},
       {"fix_routing_mask", fix_routing_mask},
       {"to_physical_map", to_physical_map},
       {"logical_count", logical_count}},
      {{"unmapped_topk_idx", unmapped_topk_idx}, {"topk_idx", topk_idx}, {"topk_weights", topk_weights}}, [&] {
        return tk_top2_sum_gate_unguarded(
            ctx, logits, bias, num_topk, num_topk_groups, num_groups, use_shared_as_routed, num_shared_experts,
            routed_scaling_factor, ep_rank, num_ep_ranks, tp_rank, num_tp_ranks, scoring, mask, fix_routing_mask,
            to_physical_map, logical_count, unmapped_topk_idx, topk_idx, topk_weights, stream);
      });
}

TK_REGISTER_OPERATORS(top2_sum_gate) {
  auto variant = [](const std::string &name, int64_t e, int64_t g, int64_t kg, int64_t k, Scoring s) {
    Top2SumGateConfig c;
    c.experts = e, c.groups = g, c.topkGroups = kg, c.topk = k, c.scoring = s, c.mask = true, c.unmapped = true;
    return KernelVariant{name, scheduledFactory(top2SumGateSchedule(), TK_PROGRAM(buildTop2SumGate), c)};
  };
  registerSchedule(top2SumGateSchedule());
  registerOperator({"top2_sum_gate",
                    "moe",
                    "tk_top2_sum_gate",
                    "the routing gate: scores, group-limited top-K, normalized weights, replicas, EP/TP ownership",
                    {variant("top2_sum_gate.e72.k6.sigmoid", 72, 0, 0, 6, Scoring::Sigmoid),
                     variant("top2_sum_gate.e256.k8.sqrtsoftplus", 256, 8, 8, 8, Scoring::SqrtSoftplus),
                     variant("top2_sum_gate.e256.g8.kg4.k8.sigmoid", 256, 8, 4, 8, Scoring::Sigmoid),
                     variant("top2_sum_gate.e144.k6.softmax", 144, 0, 0, 6, Scoring::Softmax)}});
}
