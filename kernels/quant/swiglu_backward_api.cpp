//===- swiglu_backward_api.cpp - tk_swiglu_backward_and_per_token_cast ----===//
//
// quant.md 4.18: checks, configs, two launches on the caller's stream (the
// per-chunk kernel, then weight_grad per slot from the chunks' dot products).
//===----------------------------------------------------------------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/quant/swiglu_backward.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Scratch.h"

#include <algorithm>
#include <cmath>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::quant;

namespace {

const char *kOp = "tk_swiglu_backward_and_per_token_cast";

Status invalid(const std::string &what) { return Status::invalid(std::string(kOp) + ": " + what); }

std::string shapeOf(const tk_tensor *t) {
  std::string s = "(";
  for (int i = 0; i < t->ndim; ++i)
    s += (i ? ", " : "") + std::to_string(t->shape[i]);
  return s + ")";
}

/// A contiguous 2-D or 3-D tensor as its (rows, last) 2-D view.
Status rowsView(const char *name, const tk_tensor *t, tk_dtype dtype, tk_tensor &view) {
  if (!t)
    return invalid(std::string(name) + " is null");
  Status s = checkTensor(kOp, name, t, t->ndim == 3 ? 3 : 2);
  if (s.isOk())
    s = checkDtype(kOp, name, t, dtype);
  if (!s.isOk())
    return s;
  if (!isContiguous(t))
    return invalid(std::string(name) + " must be contiguous");
  view = *t;
  if (t->ndim == 3) {
    view.ndim = 2;
    view.shape[0] = t->shape[0] * t->shape[1];
    view.shape[1] = t->shape[2];
    view.strides[0] = t->shape[2];
    view.strides[1] = 1;
  }
  return Status::ok();
}

} // namespace

static tk_status tk_swiglu_backward_and_per_token_cast_unguarded(
    tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf, const tk_tensor *grad_out, const tk_tensor *weight,
    const tk_tensor *pos_to_token_topk, const tk_tensor *token_topk_to_pos, int32_t num_per_channels, uint32_t flags,
    const float *swiglu_clamp_value, tk_tensor *out, tk_tensor *x_grad_fp8, tk_tensor *x_grad_sf, tk_tensor *x_grad,
    tk_tensor *weight_grad, tk_stream stream) {
  auto report = [](const Status &s) { return tk::runtime::report(s); };
  if (!ctx)
    return report(invalid("ctx is null"));
  const int32_t g = num_per_channels;
  if (g != 32 && g != 128)
    return report(invalid("num_per_channels must be 32 or 128, got " + std::to_string(g)));
  if (flags & ~(uint32_t)TK_ROUND_SF)
    return report(invalid("only TK_ROUND_SF is accepted (x_grad_sf is row-major fp32), got flags " +
                          std::to_string(flags)));
  if (swiglu_clamp_value && !(*swiglu_clamp_value > 0.0f && *swiglu_clamp_value < INFINITY))
    return report(invalid("swiglu_clamp_value must be a finite positive number, got " +
                          std::to_string(*swiglu_clamp_value)));
  tk_tensor xv{}, gv{};
  Status s = rowsView("x", x, TK_F8_E4M3, xv);
  if (!s.isOk())
    return report(s);
  const int64_t n = xv.shape[0], h = xv.shape[1] / 2;
  if (h == 0)
    return report(invalid("x has 2H columns with H > 0, got 0"));
  if (xv.shape[1] % (2 * g))
    return report(invalid("x has 2H columns with H a multiple of num_per_channels = " + std::to_string(g) +
                          ", got " + std::to_string(xv.shape[1])));
  // The contract of the other tensors: per row of x (N of them, 2H columns)
  // and per (token, slot) (T, k) of the routing.
  Arguments args(kOp);
  args.define("N", n, "x's rows");
  args.define("2H", 2 * h, "x's columns");
  args.define("H", h, "x's columns / 2");
  args.define("S", 2 * h / g, "2H / num_per_channels");
  if (!args.tensor("x_sf", x_sf, {"N", "S"}, {TK_F32}, Layout::Contiguous))
    return report(args.status());
  if (!(s = rowsView("grad_out", grad_out, TK_BF16, gv)).isOk())
    return report(s);
  if (gv.shape[0] != n || gv.shape[1] != h)
    return report(invalid("grad_out must be viewable as (" + std::to_string(n) + ", " + std::to_string(h) +
                          "), got " + shapeOf(grad_out)));
  args.tensor("weight", weight, {"T", "k"}, {TK_F32}, Layout::Contiguous);
  args.tensor("pos_to_token_topk", pos_to_token_topk, {"N"}, {TK_I32}, Layout::Contiguous);
  args.tensor("token_topk_to_pos", token_topk_to_pos, {"T", "k"}, {TK_I32}, Layout::Contiguous);
  args.tensor("out", out, {"N", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("x_grad_fp8", x_grad_fp8, {"N", "2H"}, {TK_F8_E4M3}, Layout::Contiguous);
  args.tensor("x_grad_sf", x_grad_sf, {"N", "S"}, {TK_F32}, Layout::Contiguous);
  args.tensor("x_grad", x_grad, {"N", "2H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("weight_grad", weight_grad, {"T", "k"}, {TK_F32}, Layout::Contiguous);
  if (!args.ok())
    return report(args.status());
  const int64_t t = args["T"], topk = args["k"];
  // The kernels' flat and (rows, 1) views of the index and weight tensors.
  tk_tensor topkView = columnView(pos_to_token_topk), weightFlat = flatView(weight);
  tk_tensor ttpView = columnView(token_topk_to_pos), gradSlots = columnView(weight_grad);
  SwigluBackwardConfig config;
  config.hidden = h, config.group = g, config.roundSf = flags & TK_ROUND_SF;
  if (swiglu_clamp_value)
    config.clamp = *swiglu_clamp_value;
  config.xAlignBytes = alignmentOf(&xv, 1);
  config.gradAlignBytes = alignmentOf(&gv, 2);
  config.outAlignBytes = std::min({alignmentOf(out, 2), alignmentOf(x_grad_fp8, 1), alignmentOf(x_grad, 2)});
  // Every tensor of both kernels is on one place before the first launch (no
  // output is written when a call fails).
  tk::compiler::Target target;
  if ((s = ctx->targetFor(
           {&xv, x_sf, &gv, &topkView, &weightFlat, out, x_grad_fp8, x_grad_sf, x_grad, &ttpView, &gradSlots}, target))
          .isOk())
    s = swigluBackwardSchedule().resolve(ctx, target, config);
  if (!s.isOk())
    return report(s);
  // Each chunk's share of its row's dot product, from the first kernel to the
  // second, in a buffer allocated and freed in the stream's order.
  // No row: one row of zeros, so that every slot reads zero (a kernel's tensors may not be empty).
  const int64_t chunks = config.numChunks(), dotRows = std::max<int64_t>(n, 1);
  tk::runtime::Scratch rowDotsBuffer;
  if (!(s = rowDotsBuffer.allocateOnStream(ctx, *out, size_t(dotRows * chunks) * 4, stream)).isOk() ||
      (n == 0 && !(s = rowDotsBuffer.zeroOnStream(stream)).isOk()))
    return report(s);
  tk_tensor rowDots = rowDotsBuffer.tensor(TK_F32, dotRows, chunks);
  if (n > 0 && t * topk > 0)
    ctx->prepare({tk::runtime::factoryOf(TK_PROGRAM(buildSwigluBackward), config),
                  tk::runtime::factoryOf(TK_PROGRAM(buildWeightGradFromRowDots), WeightGradConfig{chunks})},
                 {&xv, out});
  if (n > 0) {
    s = ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildSwigluBackward), config),
                 {&xv, x_sf, &gv, &topkView, &weightFlat, out, x_grad_fp8, x_grad_sf, x_grad, &rowDots}, stream);
    if (!s.isOk())
      return report(s);
  }
  if (t * topk == 0)
    return report(Status::ok());
  // Slot s gets the dot product of row token_topk_to_pos[s]; zero for -1 and,
  // without rows, everywhere (quant.md 4.18).
  return report(ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildWeightGradFromRowDots), WeightGradConfig{chunks}),
                         {&ttpView, &rowDots, &gradSlots}, stream));
}

extern "C" tk_status tk_swiglu_backward_and_per_token_cast(
    tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf, const tk_tensor *grad_out, const tk_tensor *weight,
    const tk_tensor *pos_to_token_topk, const tk_tensor *token_topk_to_pos, int32_t num_per_channels, uint32_t flags,
    const float *swiglu_clamp_value, tk_tensor *out, tk_tensor *x_grad_fp8, tk_tensor *x_grad_sf, tk_tensor *x_grad,
    tk_tensor *weight_grad, tk_stream stream) {
  return tk::kernels::guardCall("tk_swiglu_backward_and_per_token_cast",
                                {{"x", x},
                                 {"x_sf", x_sf},
                                 {"grad_out", grad_out},
                                 {"weight", weight},
                                 {"pos_to_token_topk", pos_to_token_topk},
                                 {"token_topk_to_pos", token_topk_to_pos}},
                                {{"out", out},
                                 {"x_grad_fp8", x_grad_fp8},
                                 {"x_grad_sf", x_grad_sf},
                                 {"x_grad", x_grad},
                                 {"weight_grad", weight_grad}},
                                [&] {
                                  return tk_swiglu_backward_and_per_token_cast_unguarded(
                                      ctx, x, x_sf, grad_out, weight, pos_to_token_topk, token_topk_to_pos,
                                      num_per_channels, flags, swiglu_clamp_value, out, x_grad_fp8, x_grad_sf, x_grad,
                                      weight_grad, stream);
                                });
}

TK_REGISTER_OPERATORS(swiglu_backward) {
  auto config = [](int64_t h, int64_t g, std::optional<float> clamp) {
    SwigluBackwardConfig c;
    c.hidden = h, c.group = g, c.roundSf = true, c.clamp = clamp;
    return c;
  };
  auto variant = [](const std::string &name, const SwigluBackwardConfig &c) {
    return KernelVariant{name, scheduledFactory(swigluBackwardSchedule(), TK_PROGRAM(buildSwigluBackward), c)};
  };
  const SwigluBackwardConfig g128 = config(7168, 128, {});
  // The weight gradient sums the chunks of the g128 kernel, as scheduled for the target.
  runtime::KernelFactory weightGrad = runtime::factoryOf(TK_PROGRAM(buildWeightGradFromRowDots), WeightGradConfig{});
#ifndef TK_RUNTIME_ONLY // which builds no programs
  weightGrad.build = [g128](mlir::MLIRContext &ctx, const compiler::Target &target) {
    SwigluBackwardConfig c = g128;
    runtime::ScheduleChoice choice;
    if (runtime::Status s =
            swigluBackwardSchedule().choose(runtime::ScheduleSettings::fromEnvironment(), target, c, choice);
        !s.isOk())
      throw std::invalid_argument(s.message());
    return buildWeightGradFromRowDots(ctx, WeightGradConfig{c.numChunks()});
  };
#endif
  registerSchedule(swigluBackwardSchedule());
  registerOperator({"swiglu_backward_and_per_token_cast", "quant", "tk_swiglu_backward_and_per_token_cast",
                    "SwiGLU backward from e4m3 input: bf16 + per-token e4m3 gradients, weight gradient",
                    {variant("swiglu_backward.h7168.g128", g128),
                     variant("swiglu_backward.h7168.g32.clamp0.5", config(7168, 32, 0.5f)),
                     KernelVariant{"swiglu_backward.weight_grad.h7168", weightGrad}}});
}
