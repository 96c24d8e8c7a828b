//===- transpose_api.cpp - tk_transpose and tk_batched_transpose ----------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/registry.h"
#include "kernels/transpose/batched_transpose.h"
#include "tk/runtime/Context.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::transpose;

namespace {

/// quant.md 4.19's contract: x (B, R, C) with contiguous rows, out (B, C, R)
/// contiguous of x's dtype; R and C multiples of 64. `x` and `out` are the
/// caller's tensors or (tk_transpose) their views as a batch of one.
tk_status run(const char *op, tk_context ctx, const tk_tensor *x, const tk_tensor *out, tk_stream stream) {
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("x", x, {"B", "R", "C"}, {TK_F8_E4M3, TK_I8, TK_U8, TK_BF16, TK_F16, TK_I16, TK_F32, TK_I32},
              Layout::UnitInnerStride);
  if (args.ok())
    args.tensor("out", out, {"B", "C", "R"}, {x->dtype}, Layout::Contiguous);
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t b = args["B"], r = args["R"], c = args["C"];
  args.require(r % 64 == 0 && c % 64 == 0,
               "rows and columns must be multiples of 64, got " + std::to_string(r) + " x " + std::to_string(c));
  args.require(x->strides[1] % 4 == 0 && (r <= 1 || x->strides[1] >= c),
               "x row stride must be a multiple of 4 and at least the row width, got " +
                   std::to_string(x->strides[1]));
  args.require(b <= 1 || x->strides[0] == r * x->strides[1], "x batch stride must be rows x row stride = " +
                                                                  std::to_string(r * x->strides[1]) + ", got " +
                                                                  std::to_string(x->strides[0]));
  if (!args.ok())
    return tk::runtime::report(args.status());
  if (numElements(x) == 0)
    return tk::runtime::report(Status::ok());
  tk_tensor xBits = *x, outBits = *out;
  xBits.dtype = outBits.dtype = bitsOf(x->dtype);
  TransposeConfig config;
  config.rows = r;
  config.cols = c;
  config.dtype = dslDtype(xBits.dtype);
  config.xAlignBytes = alignmentOf(x, tk::dsl::byteSize(config.dtype));
  return tk::runtime::report(
      runScheduled(ctx, transposeSchedule(), TK_PROGRAM(buildBatchedTranspose), config, {&xBits, &outBits}, stream));
}

/// A 2-D tensor as a batch of one.
tk_tensor asBatch(const tk_tensor &t) {
  tk_tensor v = t;
  v.ndim = 3;
  v.shape[2] = t.shape[1];
  v.shape[1] = t.shape[0];
  v.shape[0] = 1;
  v.strides[2] = t.strides[1];
  v.strides[1] = t.strides[0];
  v.strides[0] = t.shape[0] * t.strides[0];
  return v;
}

} // namespace

static tk_status tk_batched_transpose_unguarded(tk_context ctx, const tk_tensor *x, tk_tensor *out, tk_stream stream) {
  return run("tk_batched_transpose", ctx, x, out, stream);
}

extern "C" tk_status tk_batched_transpose(tk_context ctx, const tk_tensor *x, tk_tensor *out, tk_stream stream) {
  return tk::kernels::guardCall("tk_batched_transpose", {{"x", x}}, {{"out", out}},
                                [&] { return tk_batched_transpose_unguarded(ctx, x, out, stream); });
}

static tk_status tk_transpose_unguarded(tk_context ctx, const tk_tensor *x, tk_tensor *out, tk_stream stream) {
  const char *op = "tk_transpose";
  Arguments args(op); // the 2-D contract, (R, C) -> (C, R); then that of a batch of one
  args.tensor("x", x, {"R", "C"}, {});
  args.tensor("out", out, {"C", "R"}, {});
  if (!args.ok())
    return tk::runtime::report(args.status());
  const tk_tensor bx = asBatch(*x), bout = asBatch(*out);
  return run(op, ctx, &bx, &bout, stream);
}

extern "C" tk_status tk_transpose(tk_context ctx, const tk_tensor *x, tk_tensor *out, tk_stream stream) {
  return tk::kernels::guardCall("tk_transpose", {{"x", x}}, {{"out", out}},
                                [&] { return tk_transpose_unguarded(ctx, x, out, stream); });
}

TK_REGISTER_OPERATORS(transpose) {
  using dsl::DType;
  auto variant = [](const std::string &name, TransposeConfig c) {
    return KernelVariant{name, scheduledFactory(transposeSchedule(), TK_PROGRAM(buildBatchedTranspose), c)};
  };
  registerSchedule(transposeSchedule());
  registerOperator({"batched_transpose", "transpose", "tk_batched_transpose",
                    "out[b, c, r] = x[b, r, c], tiles through a swizzled shared buffer (128 x 128 for 1- and 2-byte "
                    "elements where 128 divides both dimensions, else 64 x 64)",
                    {variant("batched_transpose.b16.r4096.c7168", {4096, 7168, DType::I16}),
                     variant("batched_transpose.b8.r4096.c7168", {4096, 7168, DType::I8}),
                     variant("batched_transpose.b32.r4096.c7168", {4096, 7168, DType::I32})}});
  registerOperator({"transpose", "transpose", "tk_transpose", "2-D transpose (batched_transpose with one batch)",
                    {variant("transpose.b16.r8064.c7168", {8064, 7168, DType::I16})}});
}
