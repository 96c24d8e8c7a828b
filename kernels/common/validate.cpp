//===- validate.cpp -------------------------------------------------------===//
#include "kernels/common/validate.h"

#include <cstdint>

namespace tk::kernels {

using runtime::Status;

const char *dtypeName(tk_dtype t) {
  switch (t) {
  case TK_BF16: return "bf16";
  case TK_F16: return "f16";
  case TK_F32: return "f32";
  case TK_F8_E4M3: return "e4m3";
  case TK_I8: return "i8";
  case TK_U8: return "u8";
  case TK_I32: return "i32";
  case TK_I64: return "i64";
  case TK_I16: return "i16";
  }
  return "an unknown dtype";
}

int64_t numElements(const tk_tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i)
    n *= t->shape[i];
  return n;
}

int64_t elementBytes(tk_dtype t) {
  switch (t) {
  case TK_F8_E4M3:
  case TK_I8:
  case TK_U8: return 1;
  case TK_BF16:
  case TK_F16:
  case TK_I16: return 2;
  case TK_F32:
  case TK_I32: return 4;
  case TK_I64: return 8;
  }
  return 0;
}

/// The bytes from the first to past the last element, or -1 when that (or
/// the element count) does not fit in an int64: sizes that wrap would pass
/// every later check and index outside the data. The nonzero sizes times
/// the element's bytes must fit an int64 as well, whatever the strides and
/// even for an empty tensor: entry points form products of sizes (G epg of
/// an empty scores tensor overflowed).
static int64_t spanBytes(const tk_tensor *t) {
  int64_t last = 0, extent = elementBytes(t->dtype);
  bool empty = false;
  for (int i = 0; i < t->ndim; ++i) {
    int64_t step = 0;
    if (t->shape[i] > 0 && __builtin_mul_overflow(extent, t->shape[i], &extent))
      return -1;
    empty |= t->shape[i] == 0;
    if (t->shape[i] > 1 && (__builtin_mul_overflow(t->shape[i] - 1, t->strides[i] < 0 ? -t->strides[i] : t->strides[i],
                                                   &step) ||
                            __builtin_add_overflow(last, step, &last)))
      return -1;
  }
  int64_t bytes = 0;
  if (empty)
    return 0;
  if (__builtin_add_overflow(last, int64_t(1), &last) || __builtin_mul_overflow(last, elementBytes(t->dtype), &bytes))
    return -1;
  return bytes;
}

Status checkTensor(const char *op, const char *name, const tk_tensor *t, int ndim) {
  std::string where = std::string(op) + ": " + name;
  if (!t)
    return Status::invalid(where + " is null");
  if (t->ndim != ndim)
    return Status::invalid(where + " must have " + std::to_string(ndim) + " dimensions, got " +
                           std::to_string(t->ndim));
  for (int i = 0; i < ndim; ++i)
    if (t->shape[i] < 0)
      return Status::invalid(where + " has negative size " + std::to_string(t->shape[i]) + " in dimension " +
                             std::to_string(i));
  if (elementBytes(t->dtype) == 0)
    return Status::invalid(where + " has an unknown dtype " + std::to_string((int)t->dtype));
  if (spanBytes(t) < 0)
    return Status::invalid(where + " spans more elements or bytes than an int64 counts (shape and strides overflow)");
  if (!t->data && numElements(t) > 0)
    return Status::invalid(where + " has a null data pointer");
  if (numElements(t) > 0 && reinterpret_cast<uintptr_t>(t->data) % elementBytes(t->dtype))
    return Status::invalid(where + " data pointer is not aligned to its " + std::to_string(elementBytes(t->dtype)) +
                           "-byte " + dtypeName(t->dtype) + " elements");
  if (t->device != TK_DEVICE_CUDA && t->device != TK_DEVICE_CPU)
    return Status::invalid(where + " has an unknown device type");
  return Status::ok();
}

Status checkDtype(const char *op, const char *name, const tk_tensor *t, tk_dtype expected) {
  if (t->dtype != expected)
    return Status::invalid(std::string(op) + ": " + name + " must be " + dtypeName(expected) + ", got " +
                           dtypeName(t->dtype));
  return Status::ok();
}

tk_tensor flatView(const tk_tensor *t) {
  tk_tensor v = *t;
  v.ndim = 1;
  v.shape[0] = numElements(t);
  v.strides[0] = 1;
  return v;
}

tk_tensor columnView(const tk_tensor *t) {
  tk_tensor v = flatView(t);
  v.ndim = 2;
  v.shape[1] = 1;
  v.strides[1] = 1;
  return v;
}

tk_tensor withUnitDim(const tk_tensor *t, int at) {
  tk_tensor v = *t;
  v.ndim = t->ndim + 1;
  for (int i = t->ndim; i > at; --i)
    v.shape[i] = t->shape[i - 1], v.strides[i] = t->strides[i - 1];
  v.shape[at] = 1;
  v.strides[at] = at < t->ndim ? t->shape[at] * t->strides[at] : 1;
  return v;
}

bool isContiguous(const tk_tensor *t) {
  if (numElements(t) == 0)
    return true; // nothing to address: any strides (torch's (4, 0) has (1, 1))
  int64_t s = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] > 1 && t->strides[i] != s)
      return false;
    s *= t->shape[i];
  }
  return true;
}

int64_t alignmentOf(const tk_tensor *t, int64_t elementBytes) {
  int64_t a = 16;
  auto fit = [&](uint64_t v) {
    while (a > 1 && v % a)
      a >>= 1;
  };
  fit(reinterpret_cast<uintptr_t>(t->data));
  // The innermost dimension with unit stride is the contiguous run a vector
  // access walks along; only the strides that jump between runs (and the
  // pointer) decide how wide an access may be.
  for (int i = 0; i < t->ndim; ++i) {
    bool contiguousRun = i == t->ndim - 1 && t->strides[i] == 1;
    if (t->shape[i] > 1 && !contiguousRun)
      fit((uint64_t)(t->strides[i] * elementBytes));
  }
  return a;
}

tk_dtype bitsOf(tk_dtype t) {
  switch (elementBytes(t)) {
  case 8: return TK_I64;
  case 4: return TK_I32;
  case 2: return TK_I16;
  default: return TK_I8;
  }
}

tk_tensor bitsView(const tk_tensor *t) {
  tk_tensor v = *t;
  v.dtype = bitsOf(t->dtype);
  return v;
}

dsl::DType dslDtype(tk_dtype t) {
  static_assert((int)TK_BF16 == (int)dsl::DType::BF16 && (int)TK_F8_E4M3 == (int)dsl::DType::F8E4M3 &&
                    (int)TK_I32 == (int)dsl::DType::I32 && (int)TK_I64 == (int)dsl::DType::I64 &&
                    (int)TK_I16 == (int)dsl::DType::I16,
                "tk_dtype and dsl::DType number the element types alike");
  return static_cast<dsl::DType>(t);
}

} // namespace tk::kernels
