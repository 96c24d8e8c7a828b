//===- per_channel_cast_api.cpp - tk_per_channel_cast(_and_transpose) -----===//
//
// quant.md 4.13 and 4.15: checks, config, launch.
//===----------------------------------------------------------------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/quant/per_channel_cast.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

#include <cmath>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::quant;

namespace {

Status invalid(const char *op, const std::string &what) { return Status::invalid(std::string(op) + ": " + what); }

/// Compiles (or finds) the kernel of `config` and launches it on `args`.
Status launch(const char *op, tk_context ctx, PerChannelCastConfig config, std::vector<const tk_tensor *> args,
              tk_stream stream) {
  return runScheduled(ctx, perChannelCastSchedule(), TK_PROGRAM(buildPerChannelCast), config, args, stream);
}

/// fmt, flags and b: e4m3, TK_ROUND_SF only, b = 128 (or 32 with `anyBlock`).
Status checkOptions(const char *op, tk_format fmt, uint32_t flags, int32_t b, bool anyBlock) {
  if (fmt != TK_FORMAT_E4M3)
    return invalid(op, "fmt must be TK_FORMAT_E4M3");
  if (flags & ~(uint32_t)TK_ROUND_SF)
    return invalid(op, "only TK_ROUND_SF is accepted (scale factors are row-major fp32), got flags " +
                           std::to_string(flags));
  if (anyBlock ? (b != 32 && b != 128) : b != 128)
    return invalid(op, std::string("num_per_tokens must be ") + (anyBlock ? "32 or 128" : "128") + ", got " +
                           std::to_string(b));
  return Status::ok();
}

/// out e4m3 (rows, k), or (k, rows) `transposed`, and out_sf f32
/// (ceil(rows / b), k), both contiguous; `rowsMeaning` says where rows come from.
Status checkOutputs(const char *op, const tk_tensor *out, const tk_tensor *sf, int64_t rows, int64_t k, int64_t b,
                    bool transposed, const std::string &rowsMeaning = "x's rows") {
  Arguments args(op);
  args.define("R", rows, rowsMeaning);
  args.define("K", k, "the columns cast");
  args.define("Rb", (rows + b - 1) / b, "ceil(R / num_per_tokens)");
  args.tensor("out", out, transposed ? std::vector<Extent>{"K", "R"} : std::vector<Extent>{"R", "K"}, {TK_F8_E4M3},
              Layout::Contiguous);
  args.tensor("out_sf", sf, {"Rb", "K"}, {TK_F32}, Layout::Contiguous);
  return args.status();
}

/// A per-token quantized x (quant.md 4.14): e4m3 (N, K), K % 128 == 0, with
/// fp32 multipliers x_sf (N, K / 128) contiguous and num_per_channels = 128.
Status checkQuantizedX(const char *op, const tk_tensor *x, const tk_tensor *xSf, int32_t perChannels) {
  if (x->dtype != TK_F8_E4M3)
    return invalid(op, std::string("a quantized x (with x_sf) must be e4m3, got ") + dtypeName(x->dtype));
  if (perChannels != 128)
    return invalid(op, "a quantized x needs num_per_channels = 128, got " + std::to_string(perChannels));
  const int64_t n = x->shape[0], k = x->shape[1];
  if (k % 128)
    return invalid(op, "a quantized x needs a multiple of 128 columns, got " + std::to_string(k));
  Arguments args(op);
  args.define("N", n, "x's rows");
  args.define("Kq", k / 128, "K / 128");
  args.tensor("x_sf", xSf, {"N", "Kq"}, {TK_F32}, Layout::Contiguous);
  return args.status();
}

/// `x` is the (M, K) input as the cast sees it (for SwiGLU: a stand-in of
/// shape (M, H)); `anyBlock` allows b = 32 without the transpose (SwiGLU).
Status validate(const char *op, tk_context ctx, const tk_tensor *x, tk_format fmt, int32_t b, uint32_t flags,
                const tk_tensor *out, const tk_tensor *sf, bool transposed, PerChannelCastConfig &config,
                bool anyBlock = false) {
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("x", x, {"M", "K"}, transposed ? std::vector<tk_dtype>{TK_BF16} : std::vector<tk_dtype>{TK_BF16, TK_F32},
              Layout::Contiguous);
  if (!args.ok())
    return args.status();
  Status s = checkOptions(op, fmt, flags, b, transposed || anyBlock);
  if (!s.isOk())
    return s;
  const int64_t m = x->shape[0], k = x->shape[1];
  if (m % 128 || k % 64)
    return invalid(op, "x must have a multiple of 128 rows and of 64 columns, got (" + std::to_string(m) + ", " +
                           std::to_string(k) + ")");
  if (!(s = checkOutputs(op, out, sf, m, k, b, transposed)).isOk())
    return s;
  config.hidden = k;
  config.blockM = b;
  config.in = x->dtype == TK_BF16 ? tk::dsl::DType::BF16 : tk::dsl::DType::F32;
  config.roundSf = flags & TK_ROUND_SF;
  config.transposed = transposed;
  config.xAlignBytes = alignmentOf(x, tk::dsl::byteSize(config.in));
  config.outAlignBytes = alignmentOf(out, 1);
  return Status::ok();
}

tk_status run(const char *op, tk_context ctx, const tk_tensor *x, tk_format fmt, int32_t b, uint32_t flags,
              tk_tensor *out, tk_tensor *sf, tk_stream stream, bool transposed) {
  PerChannelCastConfig config;
  Status s = validate(op, ctx, x, fmt, b, flags, out, sf, transposed, config);
  if (!s.isOk())
    return tk::runtime::report(s);
  if (x->shape[0] == 0 || x->shape[1] == 0)
    return tk::runtime::report(Status::ok());
  return tk::runtime::report(launch(op, ctx, config, {x, out, sf}, stream));
}

/// per_channel_cast_fused with the row gather: out row p is x's row
/// pos_to_token[p] (a zero row for -1), N_out = len(pos_to_token).
Status runGather(const char *op, tk_context ctx, const tk_tensor *x, const tk_tensor *xSf, tk_format fmt, int32_t b,
                 uint32_t flags, int32_t perChannels, const tk_tensor *pos, tk_tensor *out, tk_tensor *sf,
                 tk_stream stream) {
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  // A plain x is bf16 or f32; a quantized one (with x_sf) e4m3.
  args.tensor("x", x, {"N", "K"}, xSf ? std::vector<tk_dtype>{TK_F8_E4M3} : std::vector<tk_dtype>{TK_BF16, TK_F32},
              Layout::Contiguous);
  args.tensor("pos_to_token", pos, {"N_out"}, {TK_I32}, Layout::Contiguous);
  if (!args.ok())
    return args.status();
  Status s = checkOptions(op, fmt, flags, b, /*anyBlock=*/false);
  if (!s.isOk())
    return s;
  const int64_t n = x->shape[0], k = x->shape[1], nOut = pos->shape[0];
  if (nOut % 16)
    return invalid(op, "pos_to_token's length (N_out) must be a multiple of 16, got " + std::to_string(nOut));
  PerChannelCastConfig config;
  if (xSf) {
    if (!(s = checkQuantizedX(op, x, xSf, perChannels)).isOk())
      return s;
    config.in = tk::dsl::DType::F8E4M3;
  } else {
    if (perChannels != 0)
      return invalid(op, "num_per_channels is for a quantized x (with x_sf); pass 0, got " +
                             std::to_string(perChannels));
    config.in = x->dtype == TK_BF16 ? tk::dsl::DType::BF16 : tk::dsl::DType::F32;
  }
  if (k % 64)
    return invalid(op, "x must have a multiple of 64 columns, got " + std::to_string(k));
  if (!(s = checkOutputs(op, out, sf, nOut, k, 128, false, "N_out = len(pos_to_token)")).isOk())
    return s;
  config.hidden = k;
  config.blockM = 128;
  config.roundSf = flags & TK_ROUND_SF;
  config.rowGather = true;
  config.xAlignBytes = alignmentOf(x, tk::dsl::byteSize(config.in));
  config.outAlignBytes = alignmentOf(out, 1);
  if (nOut == 0)
    return Status::ok();
  if (n == 0)
    return Status::unsupported(std::string(op) + ": an x without rows (every pos_to_token entry -1) is not supported");
  tk_tensor posView = columnView(pos); // (N_out, 1)
  if (xSf)
    return launch(op, ctx, config, {x, xSf, &posView, out, sf}, stream);
  return launch(op, ctx, config, {x, &posView, out, sf}, stream);
}

} // namespace

static tk_status tk_per_channel_cast_unguarded(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                               int32_t num_per_tokens, uint32_t flags, tk_tensor *out,
                                               tk_tensor *out_sf, tk_stream stream) {
  return run("tk_per_channel_cast", ctx, x, fmt, num_per_tokens, flags, out, out_sf, stream, false);
}

extern "C" tk_status tk_per_channel_cast(tk_context ctx, const tk_tensor *x, tk_format fmt, int32_t num_per_tokens,
                                         uint32_t flags, tk_tensor *out, tk_tensor *out_sf, tk_stream stream) {
  return tk::kernels::guardCall("tk_per_channel_cast", {{"x", x}}, {{"out", out}, {"out_sf", out_sf}}, [&] {
    return tk_per_channel_cast_unguarded(ctx, x, fmt, num_per_tokens, flags, out, out_sf, stream);
  });
}

static tk_status tk_per_channel_cast_and_transpose_unguarded(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                             int32_t num_per_tokens, uint32_t flags, tk_tensor *out,
                                                             tk_tensor *out_sf, tk_stream stream) {
  return run("tk_per_channel_cast_and_transpose", ctx, x, fmt, num_per_tokens, flags, out, out_sf, stream, true);
}

extern "C" tk_status tk_per_channel_cast_and_transpose(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                       int32_t num_per_tokens, uint32_t flags, tk_tensor *out,
                                                       tk_tensor *out_sf, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_per_channel_cast_and_transpose", {{"x", x}}, {{"out", out}, {"out_sf", out_sf}}, [&] {
        return tk_per_channel_cast_and_transpose_unguarded(ctx, x, fmt, num_per_tokens, flags, out, out_sf, stream);
      });
}

/// per_channel_cast_fused (quant.md 4.14) without the row gather: a plain x as
/// tk_per_channel_cast, or a per-token quantized one (e4m3 x with fp32 x_sf
/// (N, K / 128) of dequantization multipliers, num_per_channels = 128).
static tk_status tk_per_channel_cast_fused_unguarded(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                                     tk_format fmt, int32_t num_per_tokens, uint32_t flags,
                                                     int32_t num_per_channels, const tk_tensor *pos_to_token,
                                                     tk_tensor *out, tk_tensor *out_sf, tk_stream stream) {
  const char *op = "tk_per_channel_cast_fused";
  if (pos_to_token)
    return tk::runtime::report(runGather(op, ctx, x, x_sf, fmt, num_per_tokens, flags, num_per_channels, pos_to_token,
                                         out, out_sf, stream));
  if (!x_sf) {
    if (num_per_channels != 0)
      return tk::runtime::report(invalid(op, "num_per_channels is for a quantized x (with x_sf); pass 0, got " +
                                                 std::to_string(num_per_channels)));
    return run(op, ctx, x, fmt, num_per_tokens, flags, out, out_sf, stream, false);
  }
  // A quantized x: check it as an e4m3 tensor, then the shared checks on a bf16 stand-in.
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("x", x, {"N", "K"}, {TK_F8_E4M3}, Layout::Contiguous);
  Status s = args.status();
  if (s.isOk())
    s = checkQuantizedX(op, x, x_sf, num_per_channels);
  if (!s.isOk())
    return tk::runtime::report(s);
  const int64_t m = x->shape[0];
  tk_tensor standIn = *x;
  standIn.dtype = TK_BF16;
  PerChannelCastConfig config;
  if (!(s = validate(op, ctx, &standIn, fmt, num_per_tokens, flags, out, out_sf, false, config)).isOk())
    return tk::runtime::report(s);
  config.in = tk::dsl::DType::F8E4M3;
  config.xAlignBytes = alignmentOf(x, 1);
  if (m == 0)
    return tk::runtime::report(Status::ok());
  return tk::runtime::report(launch(op, ctx, config, {x, x_sf, out, out_sf}, stream));
}

extern "C" tk_status tk_per_channel_cast_fused(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf, tk_format fmt,
                                               int32_t num_per_tokens, uint32_t flags, int32_t num_per_channels,
                                               const tk_tensor *pos_to_token, tk_tensor *out, tk_tensor *out_sf,
                                               tk_stream stream) {
  return tk::kernels::guardCall("tk_per_channel_cast_fused", {{"x", x}, {"x_sf", x_sf}, {"pos_to_token", pos_to_token}},
                                {{"out", out}, {"out_sf", out_sf}}, [&] {
                                  return tk_per_channel_cast_fused_unguarded(ctx, x, x_sf, fmt, num_per_tokens, flags,
                                                                             num_per_channels, pos_to_token, out,
                                                                             out_sf, stream);
                                });
}

/// swiglu_forward_and_per_channel_cast_and_transpose (quant.md 4.17).
static tk_status tk_swiglu_forward_and_per_channel_cast_and_transpose_unguarded(
    tk_context ctx, const tk_tensor *x, tk_format fmt, int32_t num_per_tokens, uint32_t flags,
    int32_t without_transpose, const float *swiglu_clamp_value, tk_tensor *out, tk_tensor *out_sf, tk_stream stream) {
  const char *op = "tk_swiglu_forward_and_per_channel_cast_and_transpose";
  Arguments args(op); // x: (gate | linear) halves of H columns each
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("x", x, {"M", "2H"}, {TK_BF16}, Layout::Contiguous);
  if (!args.ok())
    return tk::runtime::report(args.status());
  Status s = Status::ok();
  if (x->shape[1] % 128)
    return tk::runtime::report(invalid(op, "x holds (gate | linear) halves of H columns each, H % 64 == 0, so its "
                                           "column count must be a multiple of 128, got " +
                                               std::to_string(x->shape[1])));
  if (x->shape[0] % 128)
    return tk::runtime::report(invalid(op, "x must have a multiple of 128 rows, got " + std::to_string(x->shape[0])));
  if (swiglu_clamp_value && !(*swiglu_clamp_value > 0.0f && *swiglu_clamp_value < INFINITY))
    return tk::runtime::report(invalid(op, "swiglu_clamp_value must be a finite positive number, got " +
                                               std::to_string(*swiglu_clamp_value)));
  tk_tensor standIn = *x; // the (M, H) activation that is cast
  standIn.shape[1] = x->shape[1] / 2;
  standIn.strides[0] = standIn.shape[1], standIn.strides[1] = 1;
  PerChannelCastConfig config;
  const bool transposed = without_transpose == 0;
  if (!(s = validate(op, ctx, &standIn, fmt, num_per_tokens, flags, out, out_sf, transposed, config,
                     /*anyBlock=*/true))
           .isOk())
    return tk::runtime::report(s);
  config.swiglu = true;
  if (swiglu_clamp_value)
    config.clamp = *swiglu_clamp_value;
  config.xAlignBytes = alignmentOf(x, 2);
  if (x->shape[0] == 0)
    return tk::runtime::report(Status::ok());
  return tk::runtime::report(launch(op, ctx, config, {x, out, out_sf}, stream));
}

extern "C" tk_status tk_swiglu_forward_and_per_channel_cast_and_transpose(
    tk_context ctx, const tk_tensor *x, tk_format fmt, int32_t num_per_tokens, uint32_t flags,
    int32_t without_transpose, const float *swiglu_clamp_value, tk_tensor *out, tk_tensor *out_sf, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_swiglu_forward_and_per_channel_cast_and_transpose", {{"x", x}}, {{"out", out}, {"out_sf", out_sf}}, [&] {
        return tk_swiglu_forward_and_per_channel_cast_and_transpose_unguarded(
            ctx, x, fmt, num_per_tokens, flags, without_transpose, swiglu_clamp_value, out, out_sf, stream);
      });
}

TK_REGISTER_OPERATORS(per_channel_cast) {
  using dsl::DType;
  auto perChannel = [](const std::string &name, PerChannelCastConfig c) {
    return KernelVariant{name, scheduledFactory(perChannelCastSchedule(), TK_PROGRAM(buildPerChannelCast), c)};
  };
  registerSchedule(perChannelCastSchedule());
  registerOperator({"per_channel_cast", "quant", "tk_per_channel_cast",
                    "128 x 1 (per-column) absmax -> scale -> e4m3 cast",
                    {perChannel("per_channel_cast.bf16.k7168.b128", {7168, 128, DType::BF16, false, false}),
                     perChannel("per_channel_cast.f32.k7168.b128.round", {7168, 128, DType::F32, true, false})}});
  registerOperator({"per_channel_cast_fused", "quant", "tk_per_channel_cast_fused",
                    "per_channel_cast of a gathered (pos_to_token) and/or per-token quantized input",
                    {perChannel("per_channel_cast_fused.e4m3.k7168.b128", {7168, 128, DType::F8E4M3, false, false}),
                     perChannel("per_channel_cast_fused.bf16.k7168.b128.gather", [] {
                       PerChannelCastConfig c{7168, 128, DType::BF16, true, false};
                       c.rowGather = true;
                       return c;
                     }()),
                     perChannel("per_channel_cast_fused.e4m3.k7168.b128.gather", [] {
                       PerChannelCastConfig c{7168, 128, DType::F8E4M3, false, false};
                       c.rowGather = true;
                       return c;
                     }())}});
  registerOperator({"per_channel_cast_and_transpose", "quant", "tk_per_channel_cast_and_transpose",
                    "b x 1 e4m3 cast written transposed (K-major)",
                    {perChannel("per_channel_cast_and_transpose.bf16.k7168.b128", {7168, 128, DType::BF16, false, true}),
                     perChannel("per_channel_cast_and_transpose.bf16.k7168.b32.round",
                                {7168, 32, DType::BF16, true, true})}});
  auto swiglu = [](int64_t b, bool transposed, std::optional<float> clamp) {
    PerChannelCastConfig c{7168, b, DType::BF16, false, transposed};
    c.swiglu = true;
    c.clamp = clamp;
    return c;
  };
  registerOperator({"swiglu_forward_and_per_channel_cast_and_transpose", "quant",
                    "tk_swiglu_forward_and_per_channel_cast_and_transpose",
                    "SwiGLU (device expf) -> bf16 -> b x 1 e4m3 cast, transposed or not",
                    {perChannel("swiglu_per_channel.h7168.b128.transposed", swiglu(128, true, {})),
                     perChannel("swiglu_per_channel.h7168.b32.clamp0.5", swiglu(32, false, 0.5f))}});
}
