//===- input_checks.h - device checks of data-dependent inputs ------------===//
//
// What tk_set_input_checks turns on (tk.h): before an operator launches, its
// index tensors are scanned for values outside their range, or its scores
// for non-finite values, on the device that holds them. One kernel writes,
// per tile, the flat offset of its first bad element; the call waits for the
// stream, reads those back and fails naming the first bad element overall,
// before any output is written. Unchecked, no kernel runs and nothing waits.
//===----------------------------------------------------------------------===//
#pragma once

#include <limits>

#include "kernels/common/program.h"
#include "tk/runtime/Status.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

struct tk_context_s;

namespace tk::kernels {

struct InputCheckConfig {
  enum class Kind { Range, Finite };
  Kind kind = Kind::Range;
  dsl::DType dtype = dsl::DType::I64; ///< I32 or I64 (Range), F32 (Finite)
  int64_t width = 1024;               ///< tile columns, a power of two
  bool rowMask = false;               ///< only rows whose u8 mask is non-zero
  int64_t alignBytes = 16;            ///< the widest access the tensor's pointer and row stride allow
  int64_t rowsPerBlock() const { return width >= 4096 ? 1 : 4096 / width; }
  std::string key() const;
};

/// x (rows, cols) with a row stride, [row_mask (rows) u8]; out first_bad
/// (ceil(rows / R), ceil(cols / width)) i64: per tile the least flat offset
/// r cols + c of a bad element, INT64_MAX if none. Scalars: lo, hi (i64;
/// Range: bad outside [lo, hi)), rows, cols (i64).
dsl::BuiltKernel buildInputCheck(mlir::MLIRContext &ctx, const InputCheckConfig &config);
/// What a tile with no bad element stores (the least offset of none).
constexpr int64_t kNoBadElement = std::numeric_limits<int64_t>::max();

/// Ok when every element of the 1-D or 2-D integer tensor `t` (of rows whose
/// `rowMask` byte is non-zero, when given) is in [lo, hi); else
/// TK_ERROR_INVALID_ARGUMENT: "op: name[r, c] = v is outside [lo, hi)" plus
/// `why`. Waits for `stream`.
runtime::Status checkRange(tk_context_s *ctx, const char *op, const char *name, const tk_tensor *t, int64_t lo,
                           int64_t hi, const std::string &why, tk_stream stream, const tk_tensor *rowMask = nullptr);

/// Ok when every element of the f32 tensor `t` is finite; else
/// TK_ERROR_INVALID_ARGUMENT naming the first that is not.
runtime::Status checkFinite(tk_context_s *ctx, const char *op, const char *name, const tk_tensor *t, tk_stream stream);

/// Whether `ctx` asks for the checks of `flag` (TK_CHECK_INDICES, TK_CHECK_FINITE).
bool checksEnabled(const tk_context_s *ctx, uint32_t flag);

} // namespace tk::kernels

namespace tk::kernels {

/// checkRange when `ctx` asks for TK_CHECK_INDICES, else ok at no cost.
runtime::Status checkIndicesIfAsked(tk_context_s *ctx, const char *op, const char *name, const tk_tensor *t, int64_t lo,
                                    int64_t hi, const std::string &why, tk_stream stream,
                                    const tk_tensor *rowMask = nullptr);
/// checkFinite when `ctx` asks for TK_CHECK_FINITE, else ok at no cost.
runtime::Status checkFiniteIfAsked(tk_context_s *ctx, const char *op, const char *name, const tk_tensor *t,
                                   tk_stream stream);

} // namespace tk::kernels
