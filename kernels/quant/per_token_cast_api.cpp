//===- per_token_cast_api.cpp - tk_per_token_cast: checks, config, launch --===//
#include "kernels/common/validate.h"
#include "kernels/quant/per_token_cast.h"
#include "tk/runtime/Context.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::quant;

namespace {

constexpr const char *kOp = "tk_per_token_cast";

Status validate(tk_context ctx, const tk_tensor *x, const tk_tensor *xSf, const int32_t *xBlock, tk_format fmt,
                int32_t g, uint32_t flags, const tk_tensor *out, const tk_tensor *outSf, PerTokenCastConfig &config) {
  if (!ctx)
    return Status::invalid(std::string(kOp) + ": ctx is null");
  Status s;
  if (!(s = checkTensor(kOp, "x", x, 2)).isOk() || !(s = checkTensor(kOp, "out", out, 2)).isOk() ||
      !(s = checkTensor(kOp, "out_sf", outSf, 2)).isOk())
    return s;
  if (fmt != TK_FORMAT_E4M3 && fmt != TK_FORMAT_E2M1 && fmt != TK_FORMAT_E5M6)
    return Status::invalid(std::string(kOp) + ": fmt must be TK_FORMAT_E4M3, TK_FORMAT_E2M1 or TK_FORMAT_E5M6");
  if (flags & ~(uint32_t)(TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0))
    return Status::invalid(std::string(kOp) + ": unknown flag bits " + std::to_string(flags));
  bool col = flags & TK_SF_COL_MAJOR, round = flags & TK_ROUND_SF, packed = flags & TK_PACKED_UE8M0;
  if (packed && !(col && round))
    return Status::invalid(std::string(kOp) + ": TK_PACKED_UE8M0 needs TK_SF_COL_MAJOR and TK_ROUND_SF");
  if ((xSf == nullptr) != (xBlock == nullptr))
    return Status::invalid(std::string(kOp) + ": a quantized input needs both x_sf and x_block_size");
  const int64_t m = x->shape[0], k = x->shape[1];
  if (!xSf && x->dtype != TK_BF16 && x->dtype != TK_F32)
    return Status::invalid(std::string(kOp) + ": x must be bf16 or f32, got " + dtypeName(x->dtype) +
                           " (quantized inputs come with x_sf)");
  bool groupOk = g == 16 || g == 32 || g == 64 || g == 128 || (g == k && k % 64 == 0);
  if (!groupOk)
    return Status::invalid(std::string(kOp) + ": num_per_channels must be 16, 32, 64, 128, or the hidden size " +
                           "when it is a multiple of 64; got " + std::to_string(g) + " for hidden size " +
                           std::to_string(k));
  if (x->strides[1] != 1 && k > 1)
    return Status::invalid(std::string(kOp) + ": x needs a unit column stride, got " + std::to_string(x->strides[1]));
  if (x->strides[0] < k && m > 1)
    return Status::invalid(std::string(kOp) + ": x row stride " + std::to_string(x->strides[0]) +
                           " is smaller than the row width " + std::to_string(k));
  // Valid per the spec, not yet built (they land with the rest of the quant family).
  if (xSf)
    return Status::unsupported(std::string(kOp) + ": quantized (re-quantization) inputs are not implemented yet");
  if (fmt != TK_FORMAT_E4M3)
    return Status::unsupported(std::string(kOp) + ": only the e4m3 output format is implemented yet");
  if (packed)
    return Status::unsupported(std::string(kOp) + ": packed UE8M0 scale factors are not implemented yet");
  // Outputs.
  if (!(s = checkDtype(kOp, "out", out, TK_F8_E4M3)).isOk() || !(s = checkDtype(kOp, "out_sf", outSf, TK_F32)).isOk())
    return s;
  if (out->shape[0] != m || out->shape[1] != k || !isContiguous(out))
    return Status::invalid(std::string(kOp) + ": out must be a contiguous (" + std::to_string(m) + ", " +
                           std::to_string(k) + ") tensor");
  int64_t kb = ceilDiv(k, g);
  if (outSf->shape[0] != m || outSf->shape[1] != kb)
    return Status::invalid(std::string(kOp) + ": out_sf must have shape (" + std::to_string(m) + ", " +
                           std::to_string(kb) + "), got (" + std::to_string(outSf->shape[0]) + ", " +
                           std::to_string(outSf->shape[1]) + ")");
  int64_t want0 = col ? 1 : kb, want1 = col ? alignUp(m, 4) : 1;
  bool strideOk = (outSf->strides[0] == want0 || m <= 1) && (outSf->strides[1] == want1 || kb <= 1);
  if (!strideOk)
    return Status::invalid(std::string(kOp) + ": out_sf must have strides (" + std::to_string(want0) + ", " +
                           std::to_string(want1) + ")" + (col ? " (TMA-aligned column-major)" : " (row-major)") +
                           ", got (" + std::to_string(outSf->strides[0]) + ", " + std::to_string(outSf->strides[1]) +
                           ")");
  config.hidden = k;
  config.group = g;
  config.in = x->dtype == TK_BF16 ? tk::dsl::DType::BF16 : tk::dsl::DType::F32;
  config.roundSf = round;
  config.xAlignBytes = alignmentOf(x, tk::dsl::byteSize(config.in));
  config.outAlignBytes = alignmentOf(out, 1);
  return Status::ok();
}

} // namespace

extern "C" tk_status tk_per_token_cast(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                       const int32_t *x_block_size, tk_format fmt, int32_t num_per_channels,
                                       uint32_t flags, tk_tensor *out, tk_tensor *out_sf, tk_stream stream) {
  PerTokenCastConfig config;
  Status s = validate(ctx, x, x_sf, x_block_size, fmt, num_per_channels, flags, out, out_sf, config);
  if (!s.isOk())
    return tk::runtime::report(s);
  if (x->shape[0] == 0)
    return tk::runtime::report(Status::ok());
  auto factory = [config](mlir::MLIRContext &mctx) { return buildPerTokenCast(mctx, config); };
  return tk::runtime::report(
      ctx->run("per_token_cast|" + config.key(), factory, {x, out, out_sf}, stream));
}
