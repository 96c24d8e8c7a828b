//===- reduce_fused_api.cpp - tk_reduce_fused -----------------------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "kernels/moe/reduce_fused.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Scratch.h"

#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::moe;

namespace {
constexpr int64_t kMaxTopk = 64; ///< slots per token the kernel unrolls
} // namespace

static tk_status tk_reduce_fused_unguarded(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                           const tk_tensor *topk_weights, const tk_tensor *token_topk_to_pos,
                                           const tk_tensor *sf, tk_tensor *out, tk_stream stream) {
  Arguments args("tk_reduce_fused");
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("x", x, {"M", "H"}, {TK_F32, TK_BF16}, Layout::Contiguous);
  args.tensor("x_sf", x_sf, {"M"}, {TK_F32}, Layout::Contiguous,
              /*optional=*/true);
  args.tensor("token_topk_to_pos", token_topk_to_pos, {"N", "K"}, {TK_I32}, Layout::Contiguous);
  args.tensor("topk_weights", topk_weights, {"N", "K"}, {TK_F32}, Layout::Contiguous, /*optional=*/true);
  args.tensor("sf", sf, {1}, {TK_F32}, Layout::Contiguous, /*optional=*/true);
  if (args.ok())
    args.tensor("out", out, {"N", "H"}, {x->dtype, TK_F8_E4M3}, Layout::Contiguous);
  if (!args.ok())
    return tk::runtime::report(args.status());
  args.require(!sf || out->dtype == TK_F8_E4M3, "sf (the global output scale) is only allowed with an e4m3 out");
  // Positions are i32, and so are the kernel's row bounds.
  args.require(args["N"] <= std::numeric_limits<int32_t>::max() && args["M"] <= std::numeric_limits<int32_t>::max(),
               "N = " + std::to_string(args["N"]) + " tokens and M = " + std::to_string(args["M"]) +
                   " rows of x must each fit the i32 positions");
  args.require(args["K"] >= 1 && args["K"] <= kMaxTopk, "K (token_topk_to_pos's columns) must be in [1, " +
                                                            std::to_string(kMaxTopk) + "], got " +
                                                            std::to_string(args["K"]));
  if (!args.ok())
    return tk::runtime::report(args.status());
  if (args["N"] == 0 || args["H"] == 0)
    return tk::runtime::report(Status::ok());
  ReduceFusedConfig c;
  c.in = dslDtype(x->dtype);
  c.out = dslDtype(out->dtype);
  c.hidden = args["H"];
  c.topk = args["K"];
  c.weights = topk_weights != nullptr;
  c.rowScale = x_sf != nullptr;
  c.scale = sf != nullptr;
  c.alignBytes = std::min(alignmentOf(x, elementBytes(x->dtype)), alignmentOf(out, elementBytes(out->dtype)));
  std::vector<const tk_tensor *> tensors = {x};
  if (x_sf)
    tensors.push_back(x_sf);
  if (topk_weights)
    tensors.push_back(topk_weights);
  tensors.push_back(token_topk_to_pos);
  if (sf)
    tensors.push_back(sf);
  tensors.push_back(out);
  // Where every tensor lives, checked before the stand-in row below is allocated there.
  tk::compiler::Target target;
  if (Status s = ctx->targetFor(tensors, target); !s.isOk())
    return tk::runtime::report(s);
  if (Status s = checkIndicesIfAsked(ctx, "tk_reduce_fused", "token_topk_to_pos", token_topk_to_pos, -1, args["M"],
                                     "M, x's rows", stream);
      !s.isOk())
    return tk::runtime::report(s);
  const int64_t m = args["M"];
  tk::runtime::Scratch standIn;
  tk_tensor zeroRow{};
  if (m == 0) { // no expert rows: every slot names none, and each token's sum
                // is cast(0 * sf)
    c.weights = c.rowScale = false;
    Status s = standIn.allocateOnStream(ctx, *x, (size_t)args["H"] * elementBytes(x->dtype), stream);
    if (s.isOk())
      s = standIn.zeroOnStream(stream);
    if (!s.isOk())
      return tk::runtime::report(s);
    zeroRow = standIn.tensor(x->dtype, 1, args["H"]);
    tensors = {&zeroRow, token_topk_to_pos};
    if (sf)
      tensors.push_back(sf);
    tensors.push_back(out);
  }
  return tk::runtime::report(
      runScheduled(ctx, reduceFusedSchedule(), TK_PROGRAM(buildReduceFused), c, tensors, stream, {m}));
}

extern "C" tk_status tk_reduce_fused(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                     const tk_tensor *topk_weights, const tk_tensor *token_topk_to_pos,
                                     const tk_tensor *sf, tk_tensor *out, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_reduce_fused",
      {{"x", x}, {"x_sf", x_sf}, {"topk_weights", topk_weights}, {"token_topk_to_pos", token_topk_to_pos}, {"sf", sf}},
      {{"out", out}},
      [&] { return tk_reduce_fused_unguarded(ctx, x, x_sf, topk_weights, token_topk_to_pos, sf, out, stream); });
}

TK_REGISTER_OPERATORS(reduce_fused) {
  using tk::dsl::DType;
  auto variant = [](const std::string &name, DType in, DType out, bool rowScale, bool scale) {
    ReduceFusedConfig c;
    c.in = in;
    c.out = out;
    c.hidden = 7168;
    c.topk = 6;
    c.weights = true;
    c.rowScale = rowScale;
    c.scale = scale;
    return KernelVariant{name, scheduledFactory(reduceFusedSchedule(), TK_PROGRAM(buildReduceFused), c)};
  };
  registerSchedule(reduceFusedSchedule());
  registerOperator({"reduce_fused",
                    "moe",
                    "tk_reduce_fused",
                    "per token, its slots' expert rows times their weights "
                    "summed with fmaf in slot order, cast",
                    {variant("reduce_fused.bf16.h7168.k6", DType::BF16, DType::BF16, false, false),
                     variant("reduce_fused.f32.e4m3.h7168.k6", DType::F32, DType::F8E4M3, true, true)}});
}
