//===- per_block_cast_lossless_api.cpp - tk_per_block_cast_lossless (4.9) -===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/first_nonzero.h"
#include "kernels/common/validate.h"
#include "kernels/quant/packed_sf.h"
#include "kernels/quant/per_block_cast_lossless.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Scratch.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::quant;

namespace {

const char *op = "tk_per_block_cast_lossless";

Status invalid(const std::string &what) { return Status::invalid(std::string(op) + ": " + what); }
Status invalidData(const std::string &what) { return Status::invalidData(std::string(op) + ": " + what); }

bool powerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string pair(int64_t a, int64_t b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

Status validate(tk_context ctx, const tk_tensor *x, const tk_tensor *xSf, const int32_t *inBlock, tk_format fmt,
                const int32_t *outBlock, uint32_t flags, const tk_tensor *out, const tk_tensor *outSf,
                PerBlockLosslessConfig &c, tk_tensor &packedIn, tk_tensor &packedOut) {
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  // x: packed e2m1, two codes per byte; out: e4m3 of the logical width K = 2 Kx.
  args.tensor("x", x, {"M", "Kx"}, {TK_I8}, Layout::Contiguous);
  args.tensor("x_sf", xSf, {"Mb", "Kb"}, {TK_F32, TK_I32});
  if (!args.ok())
    return args.status();
  Status s = Status::ok();
  if (!inBlock || !outBlock)
    return invalid(std::string(inBlock ? "out_block_size" : "x_block_size") + " is null");
  if (fmt != TK_FORMAT_E4M3)
    return invalid("fmt must be TK_FORMAT_E4M3 (the lossless re-blocking writes FP8)");
  if (flags & ~(uint32_t)(TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0))
    return invalid("unknown flag bits " + std::to_string(flags));
  if ((flags & TK_PACKED_UE8M0) && !(flags & TK_SF_COL_MAJOR))
    return invalid("TK_PACKED_UE8M0 needs TK_SF_COL_MAJOR");
  const int64_t m = x->shape[0], k = 2 * x->shape[1];
  const int64_t bIn = inBlock[0], gIn = inBlock[1], bOut = outBlock[0], gOut = outBlock[1];
  if (k % 32)
    return invalid("the logical row width (twice x's) must be a multiple of 32, got " + std::to_string(k));
  if (bIn <= 0 || gIn <= 0 || bOut <= 0 || gOut <= 0)
    return invalid("block sizes must be positive, got x_block_size " + pair(bIn, gIn) + " and out_block_size " +
                   pair(bOut, gOut));
  if (bOut % bIn || gOut % gIn)
    return invalid("out_block_size " + pair(bOut, gOut) + " must be a multiple of x_block_size " + pair(bIn, gIn));
  if (!powerOfTwo(gIn) || !powerOfTwo(gOut))
    return invalid("the block widths must be powers of two, got " + std::to_string(gIn) + " and " +
                   std::to_string(gOut));
  if (!powerOfTwo(bIn) || !powerOfTwo(bOut))
    return Status::unsupported(std::string(op) + ": block heights that are not powers of two (x_block_size " +
                               pair(bIn, gIn) + ", out_block_size " + pair(bOut, gOut) +
                               ") are not supported: a reduction group along the rows must divide the rows a "
                               "thread layout covers");
  args.define("K", k, "twice x's width: two e2m1 codes per byte");
  if (!args.tensor("out", out, {"M", "K"}, {TK_F8_E4M3}, Layout::Contiguous))
    return args.status();
  if (xSf->dtype == TK_I32) { // packed UE8M0 words, column-major (quant.md 3.3)
    if (!(s = packedSfView(op, "x_sf", xSf, ceilDiv(m, bIn), ceilDiv(k, gIn), packedIn, /*anyWordStride=*/true))
             .isOk())
      return s;
    c.inPackedSf = true;
  } else if (xSf->shape[0] != ceilDiv(m, bIn) || xSf->shape[1] != ceilDiv(k, gIn)) {
    return invalid("x_sf must have shape " + pair(ceilDiv(m, bIn), ceilDiv(k, gIn)) + ", got " +
                   pair(xSf->shape[0], xSf->shape[1]));
  }
  if (!(s = outSfView(op, "out_sf", outSf, ceilDiv(m, bOut), ceilDiv(k, gOut), flags, packedOut)).isOk())
    return s;
  c.outPackedSf = flags & TK_PACKED_UE8M0;
  c.hidden = k;
  c.inBlockM = bIn;
  c.inBlockK = gIn;
  c.outBlockM = bOut;
  c.outBlockK = gOut;
  c.xAlignBytes = alignmentOf(x, 1);
  c.outAlignBytes = alignmentOf(out, 1);
  return Status::ok();
}

/// Launches the kernel, then waits for it and reads the per-tile flags back:
/// an input block whose exponent lies too far below is an error. The flags
/// are scanned where they arrive (28672 of them for 32768 x 7168 in 32 x 256
/// tiles, on every call), in the context's page-locked read-back buffer.
Status run(tk_context ctx, const PerBlockLosslessConfig &c, const tk_tensor *x, const tk_tensor *xSf,
           const tk_tensor *out, const tk_tensor *outSf, tk_stream stream) {
  const int64_t rows = ceilDiv(x->shape[0], c.tileM()), cols = ceilDiv(c.hidden, c.tileK());
  tk::runtime::Scratch flags;
  Status s = flags.allocateOnStream(ctx, *x, rows * cols * sizeof(float), stream);
  if (!s.isOk())
    return s;
  tk_tensor violations = flags.tensor(TK_F32, rows, cols);
  if (!(s = ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildPerBlockCastLossless), c),
                     {x, xSf, out, outSf, &violations}, stream))
           .isOk())
    return s;
  int64_t i = -1; // the first tile whose flag is set, if any
  if (!(s = flags.inspect(stream, [&](const void *p) { i = firstNonzero(static_cast<const float *>(p), rows * cols); }))
           .isOk())
    return s;
  if (i >= 0)
    return invalidData("an input scale block in rows [" + std::to_string(i / cols * c.tileM()) + ", " +
                   std::to_string(std::min((i / cols + 1) * c.tileM(), x->shape[0])) + ") and columns [" +
                   std::to_string(i % cols * c.tileK()) + ", " +
                   std::to_string(std::min((i % cols + 1) * c.tileK(), c.hidden)) +
                   ") has a scale that is not a power of two (or 0), or one more than 2^11 below the largest of its output "
                   "block: its values cannot be re-blocked into e4m3 exactly (out and out_sf are incomplete)");
  return Status::ok();
}

} // namespace

static tk_status tk_per_block_cast_lossless_unguarded(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                                      const int32_t *x_block_size, tk_format fmt,
                                                      const int32_t *out_block_size, uint32_t flags, tk_tensor *out,
                                                      tk_tensor *out_sf, tk_stream stream) {
  PerBlockLosslessConfig config;
  tk_tensor packedIn{}, packedOut{};
  Status s = validate(ctx, x, x_sf, x_block_size, fmt, out_block_size, flags, out, out_sf, config, packedIn,
                      packedOut);
  if (!s.isOk())
    return tk::runtime::report(s);
  if (x->shape[0] == 0)
    return tk::runtime::report(Status::ok());
  tk::compiler::Target target;
  if ((s = ctx->targetFor({x, x_sf, out, out_sf}, target)).isOk())
    s = perBlockLosslessSchedule().resolve(ctx, target, config);
  if (!s.isOk())
    return tk::runtime::report(s);
  return tk::runtime::report(run(ctx, config, x, config.inPackedSf ? &packedIn : x_sf, out,
                                 config.outPackedSf ? &packedOut : out_sf, stream));
}

extern "C" tk_status tk_per_block_cast_lossless(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                                const int32_t *x_block_size, tk_format fmt,
                                                const int32_t *out_block_size, uint32_t flags, tk_tensor *out,
                                                tk_tensor *out_sf, tk_stream stream) {
  return tk::kernels::guardCall("tk_per_block_cast_lossless", {{"x", x}, {"x_sf", x_sf}},
                                {{"out", out}, {"out_sf", out_sf}}, [&] {
                                  return tk_per_block_cast_lossless_unguarded(
                                      ctx, x, x_sf, x_block_size, fmt, out_block_size, flags, out, out_sf, stream);
                                });
}

TK_REGISTER_OPERATORS(per_block_cast_lossless) {
  auto lossless = [](const std::string &name, PerBlockLosslessConfig c) {
    return KernelVariant{name, scheduledFactory(perBlockLosslessSchedule(), TK_PROGRAM(buildPerBlockCastLossless), c)};
  };
  registerSchedule(perBlockLosslessSchedule());
  registerOperator({"per_block_cast_lossless", "quant", "tk_per_block_cast_lossless",
                    "FP4 with power-of-two scales -> e4m3 with larger blocks, exactly",
                    {lossless("per_block_cast_lossless.k7168.in1x32.out1x128", {7168, 1, 32, 1, 128}),
                     lossless("per_block_cast_lossless.k7168.in1x32.out32x32", {7168, 1, 32, 32, 32}),
                     lossless("per_block_cast_lossless.k7168.in1x32.out128x128", {7168, 1, 32, 128, 128}),
                     lossless("per_block_cast_lossless.k7168.in1x32.out1x128.ue8m0", [] {
                       PerBlockLosslessConfig c{7168, 1, 32, 1, 128};
                       c.inPackedSf = c.outPackedSf = true;
                       return c;
                     }())}});
}
