//===- topk_group_idx_api.cpp - tk_topk_sum_and_topk_group_idx (moe.md 2.2) ===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "kernels/moe/topk_group_idx.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::moe;

namespace {
/// The widest row a CTA's tile holds (one token of 2048 scores is 16 per thread).
constexpr int64_t kMaxExperts = 2048;
} // namespace

static tk_status tk_topk_sum_and_topk_group_idx_unguarded(tk_context ctx, const tk_tensor *scores,
                                                          int32_t num_topk_sum, int32_t num_topk_groups,
                                                          tk_tensor *group_idx, tk_stream stream) {
  const char *op = "tk_topk_sum_and_topk_group_idx";
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("scores", scores, {"N", "G", "epg"}, {TK_F32}, Layout::Contiguous);
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t g = args["G"], epg = args["epg"], q = num_topk_sum, kg = num_topk_groups;
  args.require(q == 1 || q == 2, "num_topk_sum must be 1 or 2, got " + std::to_string(q));
  args.require(q <= epg, "num_topk_sum " + std::to_string(q) + " exceeds the experts per group, " + std::to_string(epg));
  args.require(kg >= 1 && kg <= g, "num_topk_groups must be in [1, G = " + std::to_string(g) + "], got " +
                                       std::to_string(kg));
  args.define("Kg", kg, "num_topk_groups");
  args.tensor("group_idx", group_idx, {"N", "Kg"}, {TK_I64}, Layout::Contiguous);
  if (!args.ok())
    return tk::runtime::report(args.status());
  if (g * epg > kMaxExperts)
    return tk::runtime::report(Status::unsupported(std::string(op) + ": at most " + std::to_string(kMaxExperts) +
                                                   " scores per token, got " + std::to_string(g * epg)));
  if (args["N"] == 0)
    return tk::runtime::report(Status::ok());
  if (Status s = checkFiniteIfAsked(ctx, "tk_topk_sum_and_topk_group_idx", "scores", scores, stream); !s.isOk())
    return tk::runtime::report(s);
  TopkGroupIdxConfig config;
  config.groups = g, config.perGroup = epg, config.topkSum = q, config.topkGroups = kg;
  tk_tensor out = *group_idx; // (N, Kg, 1): a group per (row, rank) of the kernel's tiles
  out.ndim = 3;
  out.shape[2] = 1, out.strides[2] = 1;
  return tk::runtime::report(
      runScheduled(ctx, topkGroupIdxSchedule(), TK_PROGRAM(buildTopkGroupIdx), config, {scores, &out}, stream));
}

extern "C" tk_status tk_topk_sum_and_topk_group_idx(tk_context ctx, const tk_tensor *scores, int32_t num_topk_sum,
                                                    int32_t num_topk_groups, tk_tensor *group_idx, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_topk_sum_and_topk_group_idx", {{"scores", scores}}, {{"group_idx", group_idx}}, [&] {
        return tk_topk_sum_and_topk_group_idx_unguarded(ctx, scores, num_topk_sum, num_topk_groups, group_idx, stream);
      });
}

TK_REGISTER_OPERATORS(topk_group_idx) {
  auto variant = [](const std::string &name, int64_t g, int64_t epg, int64_t q, int64_t kg) {
    TopkGroupIdxConfig c;
    c.groups = g, c.perGroup = epg, c.topkSum = q, c.topkGroups = kg;
    return KernelVariant{name, scheduledFactory(topkGroupIdxSchedule(), TK_PROGRAM(buildTopkGroupIdx), c)};
  };
  registerSchedule(topkGroupIdxSchedule());
  registerOperator({"topk_sum_and_topk_group_idx", "moe", "tk_topk_sum_and_topk_group_idx",
                    "the Kg best expert groups per token by the sum of each group's top-1 or top-2 scores",
                    {variant("topk_group_idx.g8.epg32.q2.kg4", 8, 32, 2, 4),
                     variant("topk_group_idx.g12.epg6.q2.kg4", 12, 6, 2, 4),
                     variant("topk_group_idx.g4.epg18.q1.kg2", 4, 18, 1, 2)}});
}
