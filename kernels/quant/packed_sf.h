//===- packed_sf.h - packed UE8M0 scale factors as a byte view ------------===//
#pragma once

#include "tk/runtime/Status.h"
#include "tk/tk.h"

namespace tk::kernels::quant {

/// Checks a packed UE8M0 scale-factor tensor (quant.md 3.2): int32 of shape
/// (rows, ceil(groups / 4)) with strides (1, align(rows, 4)), group 4q + j in
/// byte j of word (i, q). On success `view` is the same memory as bytes: i8 of
/// shape (rows, ceil(groups / 4), 4), strides (4, 4 align(rows, 4), 1), which
/// kernels store into with tile.store's split_last = 4.
/// Inputs (`anyWordStride`) may have any word-column stride of at least
/// `rows` (quant.md 3.3), outputs the TMA-aligned one.
runtime::Status packedSfView(const char *op, const char *name, const tk_tensor *sf, int64_t rows, int64_t groups,
                             tk_tensor &view, bool anyWordStride = false);

/// Checks fp32 scale factors of shape (rows, groups): row-major, or
/// TMA-aligned column-major (strides (1, align(rows, 4))) when `colMajor`
/// (quant.md 3.2).
runtime::Status checkFp32Sf(const char *op, const char *name, const tk_tensor *sf, int64_t rows, int64_t groups,
                            bool colMajor);

/// Output scale factors in the layout the flags ask for: packed UE8M0 words
/// (`packedView` receives their byte view) with TK_PACKED_UE8M0, else fp32,
/// column-major with TK_SF_COL_MAJOR.
runtime::Status outSfView(const char *op, const char *name, const tk_tensor *sf, int64_t rows, int64_t groups,
                          uint32_t flags, tk_tensor &packedView);

} // namespace tk::kernels::quant
