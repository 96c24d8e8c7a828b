//===- swiglu_per_token_cast_api.cpp - tk_swiglu_forward_and_per_token_cast
//
// quant.md 4.16: checks, config, launch. The 1-D index tensors are passed to
// the kernel as (N, 1) views, topk_weights as its flat (T k) view and
// clamped_count as (1, 3).
//===----------------------------------------------------------------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/quant/packed_sf.h"
#include "kernels/quant/swiglu_per_token_cast.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

#include <cmath>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::quant;

namespace {

const char *kOp = "tk_swiglu_forward_and_per_token_cast";

Status invalid(const std::string &what) { return Status::invalid(std::string(kOp) + ": " + what); }

} // namespace

static tk_status tk_swiglu_forward_and_per_token_cast_unguarded(
    tk_context ctx, const tk_tensor *x, tk_format fmt, int32_t num_per_channels, const tk_tensor *pos_to_token_topk,
    const tk_tensor *topk_weights, const tk_tensor *pos_to_expert, uint32_t flags, const float *swiglu_clamp_value,
    tk_tensor *clamped_count, const float *sf_clamp_min, tk_tensor *out, tk_tensor *out_sf, tk_stream stream) {
  auto report = [](const Status &s) { return tk::runtime::report(s); };
  // The contract: x (N, 2H) holds (gate | linear) halves; the routing
  // tensors are per row (pos_to_token_topk, pos_to_expert: (N), int32) or
  // per (token, slot) (topk_weights (T, k) fp32); out (N, H) e4m3.
  Arguments args(kOp);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("x", x, {"N", "2H"}, {TK_BF16, TK_F32}, Layout::Contiguous);
  if (!args.ok())
    return report(args.status());
  Status s = Status::ok();
  if (fmt != TK_FORMAT_E4M3)
    return report(invalid("fmt must be TK_FORMAT_E4M3"));
  const int64_t n = x->shape[0], h = x->shape[1] / 2;
  if (x->shape[1] % 256)
    return report(invalid("x holds (gate | linear) halves of H columns, H % 128 == 0: its column count must be a "
                        "multiple of 256, got " + std::to_string(x->shape[1])));
  const int32_t g = num_per_channels;
  if (g <= 0 || (g != 128 && g != h))
    return report(invalid("num_per_channels must be 128 or H = " + std::to_string(h) + ", got " + std::to_string(g)));
  if (flags & ~(uint32_t)(TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0))
    return report(invalid("unknown flag bits " + std::to_string(flags)));
  if ((flags & TK_PACKED_UE8M0) && !((flags & TK_SF_COL_MAJOR) && (flags & TK_ROUND_SF)))
    return report(invalid("TK_PACKED_UE8M0 needs TK_SF_COL_MAJOR and TK_ROUND_SF"));
  if ((flags & TK_SF_COL_MAJOR) && g != 128)
    return report(invalid("TK_SF_COL_MAJOR needs num_per_channels = 128"));
  if ((pos_to_token_topk == nullptr) != (topk_weights == nullptr))
    return report(invalid("pos_to_token_topk and topk_weights come together (or both NULL)"));
  if (clamped_count && !swiglu_clamp_value)
    return report(invalid("clamped_count needs swiglu_clamp_value"));
  if (swiglu_clamp_value && !(*swiglu_clamp_value > 0.0f && *swiglu_clamp_value < INFINITY))
    return report(invalid("swiglu_clamp_value must be a finite positive number, got " +
                        std::to_string(*swiglu_clamp_value)));
  SwigluPerTokenCastConfig config;
  config.hidden = h;
  config.group = g;
  config.in = x->dtype == TK_BF16 ? tk::dsl::DType::BF16 : tk::dsl::DType::F32;
  config.roundSf = flags & TK_ROUND_SF;
  config.packedSf = flags & TK_PACKED_UE8M0;
  if (sf_clamp_min) {
    // A smaller clamp gives an all-zero row a scale that underflows to 0 (or,
    // with TK_ROUND_SF, defeats the exponent trick) and NaN codes.
    const float minNormalScale = std::ldexp(448.0f, -126);
    if (!(*sf_clamp_min > 0.0f && *sf_clamp_min < INFINITY))
      return report(invalid("sf_clamp_min must be a finite positive number, got " + std::to_string(*sf_clamp_min)));
    if (*sf_clamp_min < minNormalScale)
      return report(invalid("sf_clamp_min must be at least 448 * 2^-126 (a normal scale), got " +
                            std::to_string(*sf_clamp_min)));
    config.sfClampBits = bits(*sf_clamp_min);
  }
  if (swiglu_clamp_value)
    config.clamp = *swiglu_clamp_value;
  std::vector<const tk_tensor *> tensors = {x};
  tk_tensor topkView{}, weightsView{}, expertView{}, countsView{}, packed{};
  args.define("H", h, "x's columns / 2");
  if (args.tensor("pos_to_token_topk", pos_to_token_topk, {"N"}, {TK_I32}, Layout::Contiguous, /*optional=*/true))
    args.tensor("topk_weights", topk_weights, {"T", "k"}, {TK_F32}, Layout::Contiguous);
  args.tensor("pos_to_expert", pos_to_expert, {"N"}, {TK_I32}, Layout::Contiguous, /*optional=*/true);
  args.tensor("clamped_count", clamped_count, {3}, {TK_I64}, Layout::Contiguous, /*optional=*/true);
  args.tensor("out", out, {"N", "H"}, {TK_F8_E4M3}, Layout::Contiguous);
  if (!args.ok())
    return report(args.status());
  if (pos_to_token_topk) {
    topkView = columnView(pos_to_token_topk); // (N, 1): one index per row of a tile
    weightsView = flatView(topk_weights); // (T k)
    config.weights = true;
    tensors.push_back(&topkView);
    tensors.push_back(&weightsView);
  }
  if (pos_to_expert) {
    expertView = columnView(pos_to_expert);
    config.expertMask = true;
    tensors.push_back(&expertView);
  }
  if (clamped_count) {
    countsView = flatView(clamped_count); // as the kernel's (1, 3) row
    countsView.ndim = 2;
    countsView.shape[0] = 1, countsView.shape[1] = 3;
    countsView.strides[0] = 3, countsView.strides[1] = 1;
    config.countClamps = true;
    tensors.push_back(&countsView);
  }
  if (!(s = outSfView(kOp, "out_sf", out_sf, n, ceilDiv(h, g), flags, packed)).isOk())
    return report(s);
  config.xAlignBytes = alignmentOf(x, x->dtype == TK_BF16 ? 2 : 4);
  config.outAlignBytes = alignmentOf(out, 1);
  tensors.push_back(out);
  tensors.push_back(config.packedSf ? &packed : out_sf);
  if (n == 0 || h == 0) // nothing to read or write (clamped_count gains nothing)
    return report(Status::ok());
  tk::compiler::Target target;
  s = ctx->targetFor(tensors, target);
  if (s.isOk())
    s = swigluPerTokenSchedule().resolve(ctx, target, config);
  if (!s.isOk())
    return report(s);
  config.wholeTiles = n % config.tileM() == 0;
  return report(ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildSwigluPerTokenCast), config), tensors, stream));
}

extern "C" tk_status tk_swiglu_forward_and_per_token_cast(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                          int32_t num_per_channels, const tk_tensor *pos_to_token_topk,
                                                          const tk_tensor *topk_weights, const tk_tensor *pos_to_expert,
                                                          uint32_t flags, const float *swiglu_clamp_value,
                                                          tk_tensor *clamped_count, const float *sf_clamp_min,
                                                          tk_tensor *out, tk_tensor *out_sf, tk_stream stream) {
  return tk::kernels::guardCall("tk_swiglu_forward_and_per_token_cast",
                                {{"x", x},
                                 {"pos_to_token_topk", pos_to_token_topk},
                                 {"topk_weights", topk_weights},
                                 {"pos_to_expert", pos_to_expert}},
                                {{"clamped_count", clamped_count}, {"out", out}, {"out_sf", out_sf}}, [&] {
                                  return tk_swiglu_forward_and_per_token_cast_unguarded(
                                      ctx, x, fmt, num_per_channels, pos_to_token_topk, topk_weights, pos_to_expert,
                                      flags, swiglu_clamp_value, clamped_count, sf_clamp_min, out, out_sf, stream);
                                });
}

TK_REGISTER_OPERATORS(swiglu_per_token_cast) {
  auto variant = [](const std::string &name, SwigluPerTokenCastConfig c) {
    return KernelVariant{name, scheduledFactory(swigluPerTokenSchedule(), TK_PROGRAM(buildSwigluPerTokenCast), c)};
  };
  auto config = [](int64_t h, int64_t g, bool routed, std::optional<float> clamp) {
    SwigluPerTokenCastConfig c;
    c.hidden = h, c.group = g, c.roundSf = true, c.weights = c.expertMask = routed;
    c.clamp = clamp, c.countClamps = clamp.has_value();
    c.wholeTiles = true; // as the benchmark's row counts
    return c;
  };
  registerSchedule(swigluPerTokenSchedule());
  registerOperator({"swiglu_forward_and_per_token_cast", "quant", "tk_swiglu_forward_and_per_token_cast",
                    "SwiGLU (device expf) x routing weight -> per-token e4m3, clamp counts",
                    {variant("swiglu_per_token.h2048.g128.weights", config(2048, 128, true, {})),
                     variant("swiglu_per_token.h2048.g128.clamp0.5.count", config(2048, 128, true, 0.5f)),
                     variant("swiglu_per_token.h3584.gH.clamp10.count", config(3584, 3584, false, 10.0f)),
                     variant("swiglu_per_token.h1024.g128.ue8m0", [&] {
                       SwigluPerTokenCastConfig c = config(1024, 128, false, {});
                       c.packedSf = true;
                       return c;
                     }())}});
}
