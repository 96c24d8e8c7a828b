//===- transpose_api.cpp - tk_transpose and tk_batched_transpose ----------===//
#include "kernels/common/validate.h"
#include "kernels/transpose/batched_transpose.h"
#include "tk/runtime/Context.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::transpose;

namespace {

Status invalid(const char *op, const std::string &what) { return Status::invalid(std::string(op) + ": " + what); }

bool supportedDtype(tk_dtype t) {
  return t == TK_F8_E4M3 || t == TK_I8 || t == TK_U8 || t == TK_BF16 || t == TK_F16 || t == TK_I16 || t == TK_F32 ||
         t == TK_I32;
}

/// A transpose moves bits: it runs on integers of the element's width, so no
/// float value (a NaN payload, say) can be altered on the way.
tk_dtype bitsOf(tk_dtype t) {
  switch (t) {
  case TK_F32:
  case TK_I32: return TK_I32;
  case TK_BF16:
  case TK_F16:
  case TK_I16: return TK_I16;
  default: return TK_I8;
  }
}

/// Checks a (B, R, C) input view and its (B, C, R) output (quant.md 4.19).
Status validate(const char *op, tk_context ctx, const tk_tensor &x, const tk_tensor &out) {
  if (!ctx)
    return invalid(op, "ctx is null");
  const int64_t b = x.shape[0], r = x.shape[1], c = x.shape[2];
  if (!supportedDtype(x.dtype))
    return invalid(op, std::string("x has dtype ") + dtypeName(x.dtype) + "; 1, 2 and 4-byte dtypes are supported");
  if (out.dtype != x.dtype)
    return invalid(op, std::string("out must have x's dtype ") + dtypeName(x.dtype) + ", got " + dtypeName(out.dtype));
  if (r % 64 || c % 64)
    return invalid(op, "rows and columns must be multiples of 64, got " + std::to_string(r) + " x " +
                           std::to_string(c));
  if (c > 1 && x.strides[2] != 1)
    return invalid(op, "x needs a unit innermost stride, got " + std::to_string(x.strides[2]));
  if (x.strides[1] % 4 || (r > 1 && x.strides[1] < c))
    return invalid(op, "x row stride must be a multiple of 4 and at least the row width, got " +
                           std::to_string(x.strides[1]));
  if (b > 1 && x.strides[0] != r * x.strides[1])
    return invalid(op, "x batch stride must be rows x row stride = " + std::to_string(r * x.strides[1]) + ", got " +
                           std::to_string(x.strides[0]));
  if (out.shape[0] != b || out.shape[1] != c || out.shape[2] != r || !isContiguous(&out))
    return invalid(op, "out must be a contiguous (" + std::to_string(b) + ", " + std::to_string(c) + ", " +
                           std::to_string(r) + ") tensor");
  return Status::ok();
}


} // namespace

namespace {

tk_status run(const char *op, tk_context ctx, const tk_tensor &x, const tk_tensor &out, tk_stream stream) {
  Status s = validate(op, ctx, x, out);
  if (!s.isOk())
    return tk::runtime::report(s);
  if (numElements(&x) == 0)
    return tk::runtime::report(Status::ok());
  tk_tensor xBits = x, outBits = out;
  xBits.dtype = outBits.dtype = bitsOf(x.dtype);
  TransposeConfig config;
  config.rows = x.shape[1];
  config.cols = x.shape[2];
  config.dtype = static_cast<tk::dsl::DType>(xBits.dtype);
  config.xAlignBytes = alignmentOf(&x, tk::dsl::byteSize(config.dtype));
  return tk::runtime::report(
      runScheduled(ctx, transposeSchedule(), buildBatchedTranspose, config, {&xBits, &outBits}, stream));
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
  const char *op = "tk_batched_transpose";
  Status s = checkTensor(op, "x", x, 3);
  if (s.isOk())
    s = checkTensor(op, "out", out, 3);
  if (!s.isOk())
    return tk::runtime::report(s);
  return run(op, ctx, *x, *out, stream);
}

extern "C" tk_status tk_batched_transpose(tk_context ctx, const tk_tensor *x, tk_tensor *out, tk_stream stream) {
  return tk::runtime::guardEntry("tk_batched_transpose",
                                 [&] { return tk_batched_transpose_unguarded(ctx, x, out, stream); });
}

static tk_status tk_transpose_unguarded(tk_context ctx, const tk_tensor *x, tk_tensor *out, tk_stream stream) {
  const char *op = "tk_transpose";
  Status s = checkTensor(op, "x", x, 2);
  if (s.isOk())
    s = checkTensor(op, "out", out, 2);
  if (!s.isOk())
    return tk::runtime::report(s);
  return run(op, ctx, asBatch(*x), asBatch(*out), stream);
}

extern "C" tk_status tk_transpose(tk_context ctx, const tk_tensor *x, tk_tensor *out, tk_stream stream) {
  return tk::runtime::guardEntry("tk_transpose", [&] { return tk_transpose_unguarded(ctx, x, out, stream); });
}
