//===- validate.h - argument checks shared by the operator entry points ---===//
#pragma once

#include "tk/dsl/DType.h"
#include "tk/runtime/Status.h"
#include "tk/tk.h"

#include <string>

namespace tk::kernels {

const char *dtypeName(tk_dtype t);
int64_t elementBytes(tk_dtype t);
/// Non-null tensor with a non-null pointer (unless empty) aligned to its
/// elements, `ndim` dims, non-negative sizes whose element count and byte
/// span fit in an int64, a known dtype, on a known device (CUDA or host).
runtime::Status checkTensor(const char *op, const char *name, const tk_tensor *t, int ndim);
runtime::Status checkDtype(const char *op, const char *name, const tk_tensor *t, tk_dtype expected);
/// Row-major contiguous.
bool isContiguous(const tk_tensor *t);
int64_t numElements(const tk_tensor *t);
/// Views of a contiguous tensor's elements as the kernels declare them: all
/// of them as a 1-D (n) tensor, or as a (n, 1) column (index tensors read
/// one value per row of a tile).
tk_tensor flatView(const tk_tensor *t);
tk_tensor columnView(const tk_tensor *t);
/// `t` with a dimension of size 1 inserted before dimension `at` (at ndim:
/// appended), its stride what a row-major tensor of the new shape has
/// there: (T, H) as (T, 1, H), (T, n) as (T, n, 1).
tk_tensor withUnitDim(const tk_tensor *t, int at);
/// The integer type of `t`'s width (I8, I16, I32, I64): operators that only
/// move elements run on it, so no float value (a NaN payload) is altered.
tk_dtype bitsOf(tk_dtype t);
/// `t` relabelled as bitsOf(t->dtype).
tk_tensor bitsView(const tk_tensor *t);
/// The DSL's element type of a C API dtype (the two enums number them alike).
dsl::DType dslDtype(tk_dtype t);
/// Largest power of two (<= 16) dividing the pointer and, in bytes, every
/// stride except a unit innermost one (the contiguous run vector accesses walk).
int64_t alignmentOf(const tk_tensor *t, int64_t elementBytes);

} // namespace tk::kernels
