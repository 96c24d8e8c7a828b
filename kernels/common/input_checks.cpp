//===- input_checks.cpp ---------------------------------------------------===//
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Scratch.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>

namespace tk::kernels {

using namespace tk::dsl;
using runtime::Status;

namespace {
constexpr int64_t kMaxWidth = 4096;

int64_t widthFor(int64_t cols) { return std::clamp<int64_t>(llvm::PowerOf2Ceil(cols), 32, kMaxWidth); }

/// (rows, cols, row stride) of a 1-D or 2-D tensor with a unit inner stride,
/// or of a contiguous one of any rank as one row.
struct Shape2d {
  int64_t rows, cols, stride;
};
Shape2d shapeOf(const tk_tensor *t) {
  if (isContiguous(t))
    return {1, numElements(t), numElements(t)};
  return {t->shape[0], t->shape[1], t->strides[0]};
}

/// The element at flat offset `f` (r cols + c), read from the device or the host.
Status readElement(tk_context_s *ctx, const tk_tensor *t, const Shape2d &s, int64_t f, tk_stream stream, void *value) {
  const int64_t bytes = elementBytes(t->dtype);
  const int64_t offset = ((f / s.cols) * s.stride + f % s.cols) * bytes;
  const char *at = static_cast<const char *>(t->data) + offset;
  if (t->device == TK_DEVICE_CPU) {
    std::memcpy(value, at, bytes);
    return Status::ok();
  }
  return ctx->readBack(reinterpret_cast<runtime::CUdeviceptr>(at), bytes, stream,
                       [&](const void *p) { std::memcpy(value, p, bytes); });
}

/// Runs the check over `t`; `first` gets the least bad flat offset or kNoBadElement.
Status scan(tk_context_s *ctx, InputCheckConfig c, const tk_tensor *t, const tk_tensor *rowMask, int64_t lo, int64_t hi,
            tk_stream stream, Shape2d &shape, int64_t &first) {
  first = kNoBadElement;
  shape = rowMask ? Shape2d{t->shape[0], t->ndim == 2 ? t->shape[1] : 1, t->ndim == 2 ? t->strides[0] : 1} : shapeOf(t);
  if (shape.rows == 0 || shape.cols == 0)
    return Status::ok();
  c.dtype = dslDtype(t->dtype), c.width = widthFor(shape.cols), c.rowMask = rowMask != nullptr;
  const int64_t gridRows = (shape.rows + c.rowsPerBlock() - 1) / c.rowsPerBlock(),
                gridCols = (shape.cols + c.width - 1) / c.width;
  tk_tensor view = *t;
  view.ndim = 2, view.shape[0] = shape.rows, view.shape[1] = shape.cols, view.strides[0] = shape.stride,
  view.strides[1] = 1;
  c.alignBytes = alignmentOf(&view, elementBytes(t->dtype));
  runtime::Scratch scratch;
  if (Status s = scratch.allocateOnStream(ctx, *t, (size_t)(gridRows * gridCols * 8), stream); !s.isOk())
    return s;
  tk_tensor out = scratch.tensor(TK_I64, gridRows, gridCols), mask;
  std::vector<const tk_tensor *> tensors = {&view};
  if (rowMask)
    mask = flatView(rowMask), mask.dtype = TK_U8, tensors.push_back(&mask);
  tensors.push_back(&out);
  if (Status s = ctx->run(runtime::factoryOf(TK_PROGRAM(buildInputCheck), c), tensors, stream,
                          {lo, hi, shape.rows, shape.cols});
      !s.isOk())
    return s;
  return scratch.inspect(stream, [&](const void *p) {
    const int64_t *tiles = static_cast<const int64_t *>(p);
    first = *std::min_element(tiles, tiles + gridRows * gridCols);
  });
}

/// Flat offsets count r cols + c in the tensor's own shape, whatever view was scanned.
std::string where(const char *name, const tk_tensor *t, int64_t f) {
  if (t->ndim == 2)
    return std::string(name) + "[" + std::to_string(f / t->shape[1]) + ", " + std::to_string(f % t->shape[1]) + "]";
  return std::string(name) + "[" + std::to_string(f) + "]";
}
} // namespace

std::string InputCheckConfig::key() const {
  return std::string("input_check:") + (kind == Kind::Range ? "range," : "finite,") + dtypeName((tk_dtype)dtype) +
         ",w=" + std::to_string(width) + ",align=" + std::to_string(alignBytes) + (rowMask ? ",masked" : "");
}

bool checksEnabled(const tk_context_s *ctx, uint32_t flag) { return ctx && (ctx->inputChecks & flag); }

Status checkRange(tk_context_s *ctx, const char *op, const char *name, const tk_tensor *t, int64_t lo, int64_t hi,
                  const std::string &why, tk_stream stream, const tk_tensor *rowMask) {
  InputCheckConfig c;
  Shape2d shape;
  int64_t first;
  if (Status s = scan(ctx, c, t, rowMask, lo, hi, stream, shape, first); !s.isOk() || first == kNoBadElement)
    return s;
  int64_t value = 0;
  if (t->dtype == TK_I32) {
    int32_t v32 = 0;
    if (Status s = readElement(ctx, t, shape, first, stream, &v32); !s.isOk())
      return s;
    value = v32;
  } else if (Status s = readElement(ctx, t, shape, first, stream, &value); !s.isOk()) {
    return s;
  }
  return Status::invalid(std::string(op) + ": " + where(name, t, first) + " = " + std::to_string(value) +
                         " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + ")" +
                         (why.empty() ? "" : " (" + why + ")") + "; found by TK_CHECK_INDICES, nothing written");
}

Status checkFinite(tk_context_s *ctx, const char *op, const char *name, const tk_tensor *t, tk_stream stream) {
  InputCheckConfig c;
  c.kind = InputCheckConfig::Kind::Finite;
  Shape2d shape;
  int64_t first;
  if (Status s = scan(ctx, c, t, nullptr, 0, 0, stream, shape, first); !s.isOk() || first == kNoBadElement)
    return s;
  float value = 0;
  if (Status s = readElement(ctx, t, shape, first, stream, &value); !s.isOk())
    return s;
  std::ostringstream v;
  v << value;
  return Status::invalid(std::string(op) + ": " + where(name, t, first) + " = " + v.str() +
                         " is not finite; found by TK_CHECK_FINITE, nothing written");
}

} // namespace tk::kernels

namespace tk::kernels {

runtime::Status checkIndicesIfAsked(tk_context_s *ctx, const char *op, const char *name, const tk_tensor *t, int64_t lo,
                                    int64_t hi, const std::string &why, tk_stream stream, const tk_tensor *rowMask) {
  return checksEnabled(ctx, TK_CHECK_INDICES) ? checkRange(ctx, op, name, t, lo, hi, why, stream, rowMask)
                                              : runtime::Status::ok();
}

runtime::Status checkFiniteIfAsked(tk_context_s *ctx, const char *op, const char *name, const tk_tensor *t,
                                   tk_stream stream) {
  return checksEnabled(ctx, TK_CHECK_FINITE) ? checkFinite(ctx, op, name, t, stream) : runtime::Status::ok();
}

} // namespace tk::kernels
