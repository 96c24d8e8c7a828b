//===- normalize_weight_api.cpp - tk_normalize_weight (moe.md 2.4) --------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/moe/normalize_weight.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::moe;

namespace {
/// Slots per token the kernel unrolls (the spec's K is at most 9).
constexpr int64_t kMaxTopk = 64;
} // namespace

static tk_status tk_normalize_weight_unguarded(tk_context ctx, const tk_tensor *topk_weights, tk_tensor *denominator,
                                               tk_tensor *normalized_weights, tk_stream stream) {
  const char *op = "tk_normalize_weight";
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("topk_weights", topk_weights, {"N", "K"}, {TK_F32}, Layout::Contiguous);
  args.tensor("denominator", denominator, {"N"}, {TK_F32}, Layout::Contiguous);
  args.tensor("normalized_weights", normalized_weights, {"N", "K"}, {TK_F32}, Layout::Contiguous);
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t k = args["K"];
  args.require(k >= 1, "topk_weights needs at least one column");
  if (!args.ok())
    return tk::runtime::report(args.status());
  if (k > kMaxTopk)
    return tk::runtime::report(Status::unsupported(std::string(op) + ": at most " + std::to_string(kMaxTopk) +
                                                   " slots per token, got " + std::to_string(k)));
  if (args["N"] == 0)
    return tk::runtime::report(Status::ok());
  NormalizeWeightConfig config;
  config.topk = k;
  tk_tensor denView = columnView(denominator); // (N, 1): one value per row of a tile
  return tk::runtime::report(runScheduled(ctx, normalizeWeightSchedule(), TK_PROGRAM(buildNormalizeWeight), config,
                                          {topk_weights, &denView, normalized_weights}, stream));
}

extern "C" tk_status tk_normalize_weight(tk_context ctx, const tk_tensor *topk_weights, tk_tensor *denominator,
                                         tk_tensor *normalized_weights, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_normalize_weight", {{"topk_weights", topk_weights}},
      {{"denominator", denominator}, {"normalized_weights", normalized_weights}},
      [&] { return tk_normalize_weight_unguarded(ctx, topk_weights, denominator, normalized_weights, stream); });
}

TK_REGISTER_OPERATORS(normalize_weight) {
  auto variant = [](const std::string &name, int64_t k) {
    NormalizeWeightConfig c;
    c.topk = k;
    return KernelVariant{name, scheduledFactory(normalizeWeightSchedule(), TK_PROGRAM(buildNormalizeWeight), c)};
  };
  registerSchedule(normalizeWeightSchedule());
  registerOperator({"normalize_weight", "moe", "tk_normalize_weight",
                    "routing weights divided by their eps-seeded sum, summed in slot order",
                    {variant("normalize_weight.k8", 8), variant("normalize_weight.k6", 6),
                     variant("normalize_weight.k9", 9)}});
}
