//===- cast_back_api.cpp - tk_cast_back (quant.md 4.10): checks, launch ---===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/quant/cast_back.h"
#include "kernels/quant/packed_sf.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::quant;

namespace {

/// quant.md 4.10-4.12's contract: x (M, Kx) contiguous codes, x_sf per
/// (b, g) block (fp32 (Mb, Kb) in any non-negative strides, or packed UE8M0
/// words), out (M, K) contiguous, where K = Kx for e4m3, 2 Kx for packed
/// e2m1 (i8), 2/3 Kx for packed e5m6 (u8).
Status validate(tk_context ctx, const tk_tensor *x, const tk_tensor *sf, const int32_t *block, const tk_tensor *out,
                CastBackConfig &config, tk_tensor &packed) {
  const char *op = "tk_cast_back";
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("x", x, {"M", "Kx"}, {TK_F8_E4M3, TK_I8, TK_U8}, Layout::Contiguous);
  args.tensor("x_sf", sf, {"Mb", "Kb"}, {TK_F32, TK_I32});
  args.require(block != nullptr, "x_block_size is null");
  if (!args.ok())
    return args.status();
  args.require(block[0] > 0 && block[1] > 0, "x_block_size must be positive, got (" + std::to_string(block[0]) +
                                                 ", " + std::to_string(block[1]) + ")");
  // The logical width: two e2m1 codes per byte, or 8 e5m6 codes per 12 bytes.
  const bool fp4 = x->dtype == TK_I8, e5m6 = x->dtype == TK_U8;
  const int64_t m = args["M"], kx = args["Kx"];
  args.require(!e5m6 || kx % 12 == 0,
               "packed e5m6 rows hold 12 bytes per 8 values: x's width must be a multiple of 12, got " +
                   std::to_string(kx));
  const int64_t k = fp4 ? 2 * kx : e5m6 ? kx / 3 * 2 : kx;
  args.define("K", k, fp4 ? "twice x's width: two e2m1 codes per byte" : e5m6 ? "x's width x 2/3: 8 e5m6 codes per 12 bytes" : "x's width");
  args.require(e5m6 || k % 64 == 0, // quant.md 4.10; e5m6 (4.12) only needs K % 8 == 0
               "the row width must be a multiple of 64, got " + std::to_string(k));
  if (!args.ok())
    return args.status();
  const int64_t b = block[0], g = block[1];
  if (sf->dtype == TK_I32) { // packed UE8M0 words, column-major (quant.md 3.3)
    if (b == 1 && g == 1)
      return Status::unsupported("tk_cast_back: packed UE8M0 scale factors per element (block 1 x 1) are not "
                                 "implemented");
    Status s = packedSfView(op, "x_sf", sf, ceilDiv(m, b), ceilDiv(k, g), packed, /*anyWordStride=*/true);
    if (!s.isOk())
      return s;
    config.packedSf = true;
  } else if (args["Mb"] != ceilDiv(m, b) || args["Kb"] != ceilDiv(k, g)) {
    return Status::invalid(std::string(op) + ": x_sf must have shape (" + std::to_string(ceilDiv(m, b)) + ", " +
                           std::to_string(ceilDiv(k, g)) + ") for x (" + std::to_string(m) + ", " + std::to_string(k) +
                           ") and blocks (" + std::to_string(b) + ", " + std::to_string(g) + "), got (" +
                           std::to_string(args["Mb"]) + ", " + std::to_string(args["Kb"]) + ")");
  }
  if (!args.tensor("out", out, {"M", "K"}, {TK_BF16, TK_F32}, Layout::Contiguous))
    return args.status();
  config.hidden = k;
  config.blockM = b;
  config.blockK = g;
  config.out = out->dtype == TK_BF16 ? tk::dsl::DType::BF16 : tk::dsl::DType::F32;
  config.in = fp4 ? Format::E2M1 : e5m6 ? Format::E5M6 : Format::E4M3;
  if (e5m6 && config.tileK() % 8)
    return Status::unsupported("tk_cast_back: e5m6 input with groups of " + std::to_string(g) + " for K = " +
                               std::to_string(k) + " gives tiles of " + std::to_string(config.tileK()) +
                               " values, not whole runs of 8 codes");
  config.xAlignBytes = alignmentOf(x, 1);
  config.outAlignBytes = alignmentOf(out, tk::dsl::byteSize(config.out));
  return Status::ok();
}

} // namespace

static tk_status tk_cast_back_unguarded(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                        const int32_t *x_block_size, tk_tensor *out, tk_stream stream) {
  CastBackConfig config;
  tk_tensor packed{};
  Status s = validate(ctx, x, x_sf, x_block_size, out, config, packed);
  if (!s.isOk())
    return tk::runtime::report(s);
  if (x->shape[0] == 0 || x->shape[1] == 0) // nothing to read or write
    return tk::runtime::report(Status::ok());
  return tk::runtime::report(ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildCastBack), config),
                                      {x, config.packedSf ? &packed : x_sf, out}, stream));
}

extern "C" tk_status tk_cast_back(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                  const int32_t *x_block_size, tk_tensor *out, tk_stream stream) {
  return tk::kernels::guardCall("tk_cast_back", {{"x", x}, {"x_sf", x_sf}}, {{"out", out}},
                                [&] { return tk_cast_back_unguarded(ctx, x, x_sf, x_block_size, out, stream); });
}

TK_REGISTER_OPERATORS(cast_back) {
  using dsl::DType;
  auto castBack = [](const std::string &name, CastBackConfig c) {
    return KernelVariant{name, runtime::factoryOf(TK_PROGRAM(buildCastBack), c)};
  };
  auto format = [](CastBackConfig c, Format in, bool packed = false) {
    c.in = in;
    c.packedSf = packed;
    return c;
  };
  registerOperator({"cast_back", "quant", "tk_cast_back", "e4m3, e2m1 or e5m6 x block scale factor -> bf16 or fp32",
                    {castBack("cast_back.e4m3.k7168.b1.g128.bf16", {7168, 1, 128, DType::BF16}),
                     castBack("cast_back.e4m3.k7168.b128.g128.f32", {7168, 128, 128, DType::F32}),
                     castBack("cast_back.e4m3.k7168.b128.g1.bf16", {7168, 128, 1, DType::BF16}),
                     castBack("cast_back.e4m3.k576.b1.g576.bf16", {576, 1, 576, DType::BF16}),
                     castBack("cast_back.e2m1.k7168.b1.g32.bf16", format({7168, 1, 32, DType::BF16}, Format::E2M1)),
                     castBack("cast_back.e5m6.k7168.b1.g7168.bf16",
                              format({7168, 1, 7168, DType::BF16}, Format::E5M6)),
                     castBack("cast_back.e4m3.k7168.b1.g128.bf16.ue8m0",
                              format({7168, 1, 128, DType::BF16}, Format::E4M3, true))}});
}
