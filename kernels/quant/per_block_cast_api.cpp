//===- per_block_cast_api.cpp - the per-block entry points of tk.h --------===//
//
// tk_per_block_cast (quant.md 4.6), tk_per_block_cast_with_sf_only (4.7) and
// tk_per_block_cast_with_precomputed_sf (4.8): checks, config, launch.
//===----------------------------------------------------------------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/quant/packed_sf.h"
#include "kernels/quant/per_block_cast.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::quant;

namespace {

Status invalid(const char *op, const std::string &what) { return Status::invalid(std::string(op) + ": " + what); }

/// Scale factors of a (ceil(M / b), ceil(K / g)) grid of blocks.
int64_t blockRows(const tk_tensor *x, const int32_t *block) { return ceilDiv(x->shape[0], block[0]); }
int64_t blockCols(const tk_tensor *x, const int32_t *block) { return ceilDiv(x->shape[1], block[1]); }

/// The checks every per-block operator makes of ctx, x, fmt, the block and
/// flags; fills the input half of `config`.
Status validateInput(const char *op, tk_context ctx, const tk_tensor *x, tk_format fmt, const int32_t *block,
                     uint32_t flags, PerBlockCastConfig &config) {
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  if (!args.tensor("x", x, {"M", "K"}, {TK_BF16, TK_F32}, Layout::Contiguous))
    return args.status();
  if (!block)
    return invalid(op, "block_size is null");
  if ((block[0] != 32 && block[0] != 128) || (block[1] != 32 && block[1] != 128))
    return invalid(op, "block_size must be (32 or 128, 32 or 128), got (" + std::to_string(block[0]) + ", " +
                           std::to_string(block[1]) + ")");
  if (fmt != TK_FORMAT_E4M3 && fmt != TK_FORMAT_E2M1)
    return invalid(op, "fmt must be TK_FORMAT_E4M3 or TK_FORMAT_E2M1");
  if (flags & ~(uint32_t)(TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0))
    return invalid(op, "unknown flag bits " + std::to_string(flags));
  if ((flags & TK_PACKED_UE8M0) && !((flags & TK_SF_COL_MAJOR) && (flags & TK_ROUND_SF)))
    return invalid(op, "TK_PACKED_UE8M0 needs TK_SF_COL_MAJOR and TK_ROUND_SF");
  if (x->shape[1] % 64)
    return invalid(op, "the row width must be a multiple of 64, got " + std::to_string(x->shape[1]));
  // Valid per the spec, not built yet (they land with the rest of the quant family).
  config.hidden = x->shape[1];
  config.blockM = block[0];
  config.blockK = block[1];
  config.in = x->dtype == TK_BF16 ? tk::dsl::DType::BF16 : tk::dsl::DType::F32;
  config.roundSf = flags & TK_ROUND_SF;
  config.packedSf = flags & TK_PACKED_UE8M0;
  config.out = fmt == TK_FORMAT_E2M1 ? Format::E2M1 : Format::E4M3;
  config.xAlignBytes = alignmentOf(x, tk::dsl::byteSize(config.in));
  return Status::ok();
}

/// out: (M, K) e4m3, or (M, K / 2) i8 holding two e2m1 codes per byte.
Status validateOut(const char *op, const tk_tensor *x, const tk_tensor *out, PerBlockCastConfig &config) {
  const bool fp4 = config.out == Format::E2M1;
  Arguments args(op);
  args.define("M", x->shape[0], "x's rows");
  args.define("Kout", fp4 ? x->shape[1] / 2 : x->shape[1], fp4 ? "K / 2: two e2m1 codes per byte" : "K");
  if (!args.tensor("out", out, {"M", "Kout"}, {fp4 ? TK_I8 : TK_F8_E4M3}, Layout::Contiguous))
    return args.status();
  config.outAlignBytes = alignmentOf(out, 1);
  return Status::ok();
}

tk_status launch(tk_context ctx, const PerBlockCastConfig &config, const tk_tensor *x,
                 std::vector<const tk_tensor *> tensors, tk_stream stream) {
  if (x->shape[0] == 0)
    return tk::runtime::report(Status::ok());
  return tk::runtime::report(ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildPerBlockCast), config), tensors, stream));
}

} // namespace

static tk_status tk_per_block_cast_unguarded(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                             const int32_t *block_size, uint32_t flags, tk_tensor *out,
                                             tk_tensor *out_sf, tk_stream stream) {
  const char *op = "tk_per_block_cast";
  PerBlockCastConfig config;
  tk_tensor packed{};
  Status s = validateInput(op, ctx, x, fmt, block_size, flags, config);
  if (s.isOk())
    s = validateOut(op, x, out, config);
  if (s.isOk())
    s = outSfView(op, "out_sf", out_sf, blockRows(x, block_size), blockCols(x, block_size), flags, packed);
  if (!s.isOk())
    return tk::runtime::report(s);
  return launch(ctx, config, x, {x, out, config.packedSf ? &packed : out_sf}, stream);
}

extern "C" tk_status tk_per_block_cast(tk_context ctx, const tk_tensor *x, tk_format fmt, const int32_t *block_size,
                                       uint32_t flags, tk_tensor *out, tk_tensor *out_sf, tk_stream stream) {
  return tk::kernels::guardCall("tk_per_block_cast", {{"x", x}}, {{"out", out}, {"out_sf", out_sf}}, [&] {
    return tk_per_block_cast_unguarded(ctx, x, fmt, block_size, flags, out, out_sf, stream);
  });
}

static tk_status tk_per_block_cast_with_sf_only_unguarded(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                          const int32_t *block_size, uint32_t flags, tk_tensor *out_sf,
                                                          tk_stream stream) {
  const char *op = "tk_per_block_cast_with_sf_only";
  PerBlockCastConfig config;
  tk_tensor packed{};
  Status s = validateInput(op, ctx, x, fmt, block_size, flags, config);
  if (s.isOk())
    s = outSfView(op, "out_sf", out_sf, blockRows(x, block_size), blockCols(x, block_size), flags, packed);
  if (!s.isOk())
    return tk::runtime::report(s);
  config.mode = PerBlockMode::SfOnly;
  return launch(ctx, config, x, {x, config.packedSf ? &packed : out_sf}, stream);
}

extern "C" tk_status tk_per_block_cast_with_sf_only(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                    const int32_t *block_size, uint32_t flags, tk_tensor *out_sf,
                                                    tk_stream stream) {
  return tk::kernels::guardCall("tk_per_block_cast_with_sf_only", {{"x", x}}, {{"out_sf", out_sf}}, [&] {
    return tk_per_block_cast_with_sf_only_unguarded(ctx, x, fmt, block_size, flags, out_sf, stream);
  });
}

static tk_status tk_per_block_cast_with_precomputed_sf_unguarded(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                                 const int32_t *block_size, const tk_tensor *sf,
                                                                 uint32_t flags, tk_tensor *out, tk_stream stream) {
  const char *op = "tk_per_block_cast_with_precomputed_sf";
  PerBlockCastConfig config;
  if (flags & (TK_SF_COL_MAJOR | TK_PACKED_UE8M0))
    return tk::runtime::report(
        invalid(op, "sf must be row-major fp32: TK_SF_COL_MAJOR and TK_PACKED_UE8M0 are not accepted"));
  Status s = validateInput(op, ctx, x, fmt, block_size, flags, config);
  if (s.isOk())
    s = validateOut(op, x, out, config);
  if (s.isOk())
    s = checkFp32Sf(op, "sf", sf, blockRows(x, block_size), blockCols(x, block_size), false);
  if (!s.isOk())
    return tk::runtime::report(s);
  config.mode = PerBlockMode::PrecomputedSf;
  config.roundSf = false; // ignored by this operator (spec 4.8)
  return launch(ctx, config, x, {x, sf, out}, stream);
}

extern "C" tk_status tk_per_block_cast_with_precomputed_sf(tk_context ctx, const tk_tensor *x, tk_format fmt,
                                                           const int32_t *block_size, const tk_tensor *sf,
                                                           uint32_t flags, tk_tensor *out, tk_stream stream) {
  return tk::kernels::guardCall("tk_per_block_cast_with_precomputed_sf", {{"x", x}, {"sf", sf}}, {{"out", out}}, [&] {
    return tk_per_block_cast_with_precomputed_sf_unguarded(ctx, x, fmt, block_size, sf, flags, out, stream);
  });
}

TK_REGISTER_OPERATORS(per_block_cast) {
  using dsl::DType;
  auto perBlock = [](const std::string &name, PerBlockCastConfig c, PerBlockMode mode) {
    c.mode = mode;
    return KernelVariant{name, runtime::factoryOf(TK_PROGRAM(buildPerBlockCast), c)};
  };
  registerOperator({"per_block_cast", "quant", "tk_per_block_cast",
                    "b x g block absmax -> scale -> e4m3 cast, fp32 scale factors",
                    {perBlock("per_block_cast.bf16.k7168.b128.g128", {7168, 128, 128, DType::BF16}, PerBlockMode::Cast),
                     perBlock("per_block_cast.f32.k7168.b32.g32.round", {7168, 32, 32, DType::F32, true},
                              PerBlockMode::Cast),
                     perBlock("per_block_cast.bf16.k7168.b128.g128.round.ue8m0",
                              [] {
                                PerBlockCastConfig c{7168, 128, 128, DType::BF16, true};
                                c.packedSf = true;
                                return c;
                              }(),
                              PerBlockMode::Cast)}});
  registerOperator({"per_block_cast_with_sf_only", "quant", "tk_per_block_cast_with_sf_only",
                    "the scale factors of per_block_cast only",
                    {perBlock("per_block_cast_with_sf_only.bf16.k7168.b128.g128.round",
                              {7168, 128, 128, DType::BF16, true}, PerBlockMode::SfOnly)}});
  registerOperator({"per_block_cast_with_precomputed_sf", "quant", "tk_per_block_cast_with_precomputed_sf",
                    "e4m3 cast with caller-given per-block scale factors",
                    {perBlock("per_block_cast_with_precomputed_sf.bf16.k7168.b128.g128",
                              {7168, 128, 128, DType::BF16}, PerBlockMode::PrecomputedSf)}});
}
