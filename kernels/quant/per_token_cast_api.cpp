//===- per_token_cast_api.cpp - the per-token entry points of tk.h --------===//
//
// tk_per_token_cast (quant.md 4.1), tk_per_token_cast_with_sf_only (4.3) and
// tk_per_token_cast_with_precomputed_sf (4.4): checks, config, launch.
//===----------------------------------------------------------------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/quant/packed_sf.h"
#include "kernels/quant/per_token_cast.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::quant;

namespace {

Status invalid(const char *op, const std::string &what) { return Status::invalid(std::string(op) + ": " + what); }

/// The checks every per-token operator makes of ctx, x, fmt, g and flags;
/// fills the input half of `config`.
Status validateInput(const char *op, tk_context ctx, const tk_tensor *x, const tk_tensor *xSf, const int32_t *xBlock,
                     tk_format fmt, int32_t g, uint32_t flags, bool allowWholeRowGroup, PerTokenCastConfig &config,
                     tk_tensor &packedIn) {
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  // Plain x is bf16 or f32; a quantized one (with x_sf) e4m3 or packed e2m1 (i8).
  args.tensor("x", x, {"M", "Kx"},
              xSf ? std::vector<tk_dtype>{TK_F8_E4M3, TK_I8} : std::vector<tk_dtype>{TK_BF16, TK_F32},
              Layout::UnitInnerStride);
  args.tensor("x_sf", xSf, {"Mb", "Kb"}, {TK_F32, TK_I32}, Layout::Strided, /*optional=*/true);
  if (!args.ok())
    return args.status();
  Status s = Status::ok();
  if (fmt != TK_FORMAT_E4M3 && fmt != TK_FORMAT_E2M1 && fmt != TK_FORMAT_E5M6)
    return invalid(op, "fmt must be TK_FORMAT_E4M3, TK_FORMAT_E2M1 or TK_FORMAT_E5M6");
  if (flags & ~(uint32_t)(TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0))
    return invalid(op, "unknown flag bits " + std::to_string(flags));
  if ((flags & TK_PACKED_UE8M0) && !((flags & TK_SF_COL_MAJOR) && (flags & TK_ROUND_SF)))
    return invalid(op, "TK_PACKED_UE8M0 needs TK_SF_COL_MAJOR and TK_ROUND_SF");
  if ((xSf == nullptr) != (xBlock == nullptr))
    return invalid(op, "a quantized input needs both x_sf and x_block_size");
  // The logical width: packed FP4 input holds two values per byte (quant.md 4.2).
  const bool fp4In = xSf && x->dtype == TK_I8;
  const int64_t m = x->shape[0], stored = x->shape[1], k = fp4In ? 2 * stored : stored;
  if (xSf) {
    if (xBlock[0] <= 0 || xBlock[1] <= 0)
      return invalid(op, "x_block_size must be positive, got (" + std::to_string(xBlock[0]) + ", " +
                             std::to_string(xBlock[1]) + ")");
    if (g == k)
      return invalid(op, "a quantized input needs num_per_channels below the hidden size (not one group per row)");
    if (xSf->dtype == TK_I32) { // packed UE8M0 words, column-major (quant.md 3.3)
      if (!(s = packedSfView(op, "x_sf", xSf, ceilDiv(m, xBlock[0]), ceilDiv(k, xBlock[1]), packedIn,
                             /*anyWordStride=*/true))
               .isOk())
        return s;
      config.inPackedSf = true;
    } else if (xSf->shape[0] != ceilDiv(m, xBlock[0]) || xSf->shape[1] != ceilDiv(k, xBlock[1]))
      return invalid(op, "x_sf must have shape (" + std::to_string(ceilDiv(m, xBlock[0])) + ", " +
                             std::to_string(ceilDiv(k, xBlock[1])) + "), got (" + std::to_string(xSf->shape[0]) +
                             ", " + std::to_string(xSf->shape[1]) + ")");
  }
  bool groupOk = g == 16 || g == 32 || g == 64 || g == 128 || (g == k && k > 0 && k % 64 == 0 && allowWholeRowGroup);
  if (!groupOk)
    return invalid(op, "num_per_channels must be 16, 32, 64, 128" +
                           std::string(allowWholeRowGroup ? ", or the hidden size when it is a multiple of 64" : "") +
                           "; got " + std::to_string(g) + " for hidden size " + std::to_string(k));
  if (x->strides[0] < stored && m > 1)
    return invalid(op, "x row stride " + std::to_string(x->strides[0]) + " is smaller than the row width " +
                           std::to_string(stored));
  if (fmt == TK_FORMAT_E2M1 && k % 2)
    return invalid(op, "e2m1 output packs two values per byte: the hidden size must be even, got " +
                           std::to_string(k));
  if (fmt == TK_FORMAT_E5M6) { // per_token_cast_to_e5m6 (quant.md 4.5)
    if (!allowWholeRowGroup || xSf)
      return invalid(op, "the e5m6 format is for tk_per_token_cast of plain input only");
    if (g != k || k % 8)
      return invalid(op, "e5m6 output needs one group per row (num_per_channels == K) and K % 8 == 0, got g = " +
                             std::to_string(g) + ", K = " + std::to_string(k));
  }
  config.hidden = k;
  config.group = g;
  config.in = fp4In ? tk::dsl::DType::I8
             : xSf ? tk::dsl::DType::F8E4M3
             : x->dtype == TK_BF16 ? tk::dsl::DType::BF16 : tk::dsl::DType::F32;
  config.roundSf = flags & TK_ROUND_SF;
  config.packedSf = flags & TK_PACKED_UE8M0;
  config.out = fmt == TK_FORMAT_E2M1 ? Format::E2M1 : fmt == TK_FORMAT_E5M6 ? Format::E5M6 : Format::E4M3;
  config.xAlignBytes = alignmentOf(x, tk::dsl::byteSize(config.in));
  config.xContiguous = x->strides[0] == (fp4In ? k / 2 : k);
  if (xSf) {
    config.inBlockM = xBlock[0];
    // A block at least as wide as the row is one scale per row: the same as a
    // block of the row's width, which keeps the kernel's tile within the row
    // (a block of 2^31 - 1 columns made a tile that wide).
    config.inBlockK = std::min<int64_t>(xBlock[1], std::max<int64_t>(k, 1));
    // The kernel's tiles must not straddle the input's scale blocks unevenly.
    if ((config.inBlockM != 1 && config.inBlockM % config.tileM()) || config.tileK() % config.inBlockK)
      return Status::unsupported(std::string(op) + ": input scale blocks (" + std::to_string(xBlock[0]) + ", " +
                                 std::to_string(xBlock[1]) + ") do not fit this kernel's " +
                                 std::to_string(config.tileM()) + " x " + std::to_string(config.tileK()) +
                                 " tiles (rows: 1 or a multiple of " + std::to_string(config.tileM()) +
                                 "; columns: a divisor of " + std::to_string(config.tileK()) + ")");
  }
  return Status::ok();
}

/// out: (M, K) e4m3, (M, K / 2) i8 holding two e2m1 codes per byte, or
/// (M, 3 K / 2) u8 holding 8 e5m6 codes per 3 words.
Status validateOut(const char *op, const tk_tensor *x, const tk_tensor *out, PerTokenCastConfig &config) {
  const bool fp4 = config.out == Format::E2M1, e5m6 = config.out == Format::E5M6;
  Arguments args(op);
  args.define("M", x->shape[0], "x's rows");
  args.define("Kout", fp4 ? config.hidden / 2 : e5m6 ? config.hidden / 2 * 3 : config.hidden,
              fp4 ? "K / 2: two e2m1 codes per byte" : e5m6 ? "K x 3/2: 8 e5m6 codes per 12 bytes" : "K");
  if (!args.tensor("out", out, {"M", "Kout"}, {fp4 ? TK_I8 : e5m6 ? TK_U8 : TK_F8_E4M3}, Layout::Contiguous))
    return args.status();
  config.outAlignBytes = alignmentOf(out, 1);
  return Status::ok();
}

tk_status launch(tk_context ctx, PerTokenCastConfig config, const tk_tensor *x, std::vector<const tk_tensor *> tensors,
                 tk_stream stream) {
  if (x->shape[0] == 0 || x->shape[1] == 0) // nothing to read or write
    return tk::runtime::report(Status::ok());
  return tk::runtime::report(
      runScheduled(ctx, perTokenCastSchedule(), TK_PROGRAM(buildPerTokenCast), config, tensors, stream));
}

} // namespace

static tk_status tk_per_token_cast_unguarded(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                             const int32_t *x_block_size, tk_format fmt, int32_t num_per_channels,
                                             uint32_t flags, tk_tensor *out, tk_tensor *out_sf, tk_stream stream) {
  const char *op = "tk_per_token_cast";
  PerTokenCastConfig config;
  tk_tensor packed{}, packedIn{};
  Status s = validateInput(op, ctx, x, x_sf, x_block_size, fmt, num_per_channels, flags, true, config, packedIn);
  if (s.isOk())
    s = validateOut(op, x, out, config);
  if (s.isOk())
    s = outSfView(op, "out_sf", out_sf, x->shape[0], ceilDiv(config.hidden, num_per_channels), flags, packed);
  if (!s.isOk())
    return tk::runtime::report(s);
  const tk_tensor *sfOut = config.packedSf ? &packed : out_sf;
  if (x_sf)
    return launch(ctx, config, x, {x, config.inPackedSf ? &packedIn : x_sf, out, sfOut}, stream);
  return launch(ctx, config, x, {x, out, sfOut}, stream);
}

extern "C" tk_status tk_per_token_cast(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                       const int32_t *x_block_size, tk_format fmt, int32_t num_per_channels,
                                       uint32_t flags, tk_tensor *out, tk_tensor *out_sf, tk_stream stream) {
  return tk::kernels::guardCall("tk_per_token_cast", {{"x", x}, {"x_sf", x_sf}}, {{"out", out}, {"out_sf", out_sf}},
                                [&] {
                                  return tk_per_token_cast_unguarded(ctx, x, x_sf, x_block_size, fmt, num_per_channels,
                                                                     flags, out, out_sf, stream);
                                });
}

static tk_status tk_per_token_cast_with_sf_only_unguarded(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                                          const int32_t *x_block_size, tk_format fmt,
                                                          int32_t num_per_channels, uint32_t flags, tk_tensor *out_sf,
                                                          tk_stream stream) {
  const char *op = "tk_per_token_cast_with_sf_only";
  PerTokenCastConfig config;
  tk_tensor packed{}, packedIn{};
  if (x_sf)
    return tk::runtime::report(invalid(op, "takes a plain (not quantized) input"));
  Status s = validateInput(op, ctx, x, x_sf, x_block_size, fmt, num_per_channels, flags, false, config, packedIn);
  if (s.isOk())
    s = outSfView(op, "out_sf", out_sf, x->shape[0], ceilDiv(config.hidden, num_per_channels), flags, packed);
  if (!s.isOk())
    return tk::runtime::report(s);
  config.mode = PerTokenMode::SfOnly;
  return launch(ctx, config, x, {x, config.packedSf ? &packed : out_sf}, stream);
}

extern "C" tk_status tk_per_token_cast_with_sf_only(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                                    const int32_t *x_block_size, tk_format fmt,
                                                    int32_t num_per_channels, uint32_t flags, tk_tensor *out_sf,
                                                    tk_stream stream) {
  return tk::kernels::guardCall("tk_per_token_cast_with_sf_only", {{"x", x}, {"x_sf", x_sf}}, {{"out_sf", out_sf}},
                                [&] {
                                  return tk_per_token_cast_with_sf_only_unguarded(
                                      ctx, x, x_sf, x_block_size, fmt, num_per_channels, flags, out_sf, stream);
                                });
}

static tk_status tk_per_token_cast_with_precomputed_sf_unguarded(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                                 int32_t num_per_channels, const tk_tensor *sf,
                                                                 uint32_t flags, tk_tensor *out, tk_stream stream) {
  const char *op = "tk_per_token_cast_with_precomputed_sf";
  PerTokenCastConfig config;
  if (flags & (TK_SF_COL_MAJOR | TK_PACKED_UE8M0))
    return tk::runtime::report(
        invalid(op, "sf must be row-major fp32: TK_SF_COL_MAJOR and TK_PACKED_UE8M0 are not accepted"));
  tk_tensor packedIn{};
  Status s = validateInput(op, ctx, x, nullptr, nullptr, fmt, num_per_channels, flags, false, config, packedIn);
  if (s.isOk())
    s = validateOut(op, x, out, config);
  if (!s.isOk())
    return tk::runtime::report(s);
  Arguments args(op); // sf: one row-major fp32 scale per (row, group)
  args.define("M", x->shape[0], "x's rows");
  args.define("Kb", ceilDiv(x->shape[1], num_per_channels), "ceil(K / num_per_channels)");
  if (!args.tensor("sf", sf, {"M", "Kb"}, {TK_F32}, Layout::UnitInnerStride) ||
      !args.require(sf->strides[0] >= args["Kb"] || args["M"] <= 1,
                    "sf rows must not overlap: row stride " + std::to_string(sf->strides[0]) + " is below " +
                        std::to_string(args["Kb"])))
    return tk::runtime::report(args.status());
  config.mode = PerTokenMode::PrecomputedSf;
  config.roundSf = false; // ignored by this operator (spec 4.4)
  return launch(ctx, config, x, {x, sf, out}, stream);
}

extern "C" tk_status tk_per_token_cast_with_precomputed_sf(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                           int32_t num_per_channels, const tk_tensor *sf,
                                                           uint32_t flags, tk_tensor *out, tk_stream stream) {
  return tk::kernels::guardCall("tk_per_token_cast_with_precomputed_sf", {{"x", x}, {"sf", sf}}, {{"out", out}}, [&] {
    return tk_per_token_cast_with_precomputed_sf_unguarded(ctx, x, fmt, num_per_channels, sf, flags, out, stream);
  });
}

namespace {

KernelVariant perTokenCastVariant(const std::string &name, PerTokenCastConfig c, PerTokenMode mode = PerTokenMode::Cast) {
  c.mode = mode;
  c.xContiguous = true; // what the C API compiles for contiguous rows, the common case
  return {name, scheduledFactory(perTokenCastSchedule(), TK_PROGRAM(buildPerTokenCast), c)};
}

PerTokenCastConfig e2m1(PerTokenCastConfig c) {
  c.out = Format::E2M1;
  return c;
}

PerTokenCastConfig e5m6(PerTokenCastConfig c) {
  c.out = Format::E5M6;
  return c;
}

PerTokenCastConfig packedUe8m0(PerTokenCastConfig c) {
  c.packedSf = true;
  return c;
}

PerTokenCastConfig requant(PerTokenCastConfig c, int64_t bIn, int64_t gIn) {
  c.in = tk::dsl::DType::F8E4M3;
  c.inBlockM = bIn;
  c.inBlockK = gIn;
  return c;
}

} // namespace

TK_REGISTER_OPERATORS(per_token_cast) {
  using dsl::DType;
  registerSchedule(perTokenCastSchedule());
  registerOperator({"per_token_cast", "quant", "tk_per_token_cast",
                    "1 x g group absmax -> scale -> e4m3 cast, fp32 scale factors",
                    {perTokenCastVariant("per_token_cast.bf16.k7168.g128", {7168, 128, DType::BF16, false}),
                     perTokenCastVariant("per_token_cast.f32.k7168.g128.round", {7168, 128, DType::F32, true}),
                     perTokenCastVariant("per_token_cast.bf16.k2560.g32.round", {2560, 32, DType::BF16, true}),
                     perTokenCastVariant("per_token_cast.bf16.k576.g576", {576, 576, DType::BF16, false}),
                     perTokenCastVariant("per_token_cast.bf16.k7168.g7168", {7168, 7168, DType::BF16, false}),
                     perTokenCastVariant("per_token_cast.bf16.k7168.g32.round.e2m1",
                                         e2m1({7168, 32, DType::BF16, true})),
                     perTokenCastVariant("per_token_cast.f32.k7168.g7168.round.e5m6",
                                         e5m6({7168, 7168, DType::F32, true})),
                     perTokenCastVariant("per_token_cast.bf16.k7168.g128.round.ue8m0",
                                         packedUe8m0({7168, 128, DType::BF16, true})),
                     perTokenCastVariant("per_token_cast.e4m3.k7168.g128.in128x128",
                                         requant({7168, 128, DType::BF16, true}, 128, 128)),
                     perTokenCastVariant("per_token_cast.e2m1.k7168.g32.in32x32.e2m1", [] {
                       PerTokenCastConfig c = e2m1(requant({7168, 32, DType::BF16, true}, 32, 32));
                       c.in = DType::I8; // packed FP4 input
                       return c;
                     }())}});
  registerOperator({"per_token_cast_with_sf_only", "quant", "tk_per_token_cast_with_sf_only",
                    "the scale factors of per_token_cast only",
                    {perTokenCastVariant("per_token_cast_with_sf_only.bf16.k7168.g128.round",
                                         {7168, 128, DType::BF16, true}, PerTokenMode::SfOnly)}});
  registerOperator({"per_token_cast_with_precomputed_sf", "quant", "tk_per_token_cast_with_precomputed_sf",
                    "e4m3 cast with caller-given per-token scale factors",
                    {perTokenCastVariant("per_token_cast_with_precomputed_sf.bf16.k7168.g128",
                                         {7168, 128, DType::BF16, false}, PerTokenMode::PrecomputedSf)}});
}
