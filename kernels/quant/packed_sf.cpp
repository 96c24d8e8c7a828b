//===- packed_sf.cpp ------------------------------------------------------===//
#include "kernels/quant/packed_sf.h"
#include "kernels/common/validate.h"
#include "kernels/quant/formats.h"

namespace tk::kernels::quant {

runtime::Status packedSfView(const char *op, const char *name, const tk_tensor *sf, int64_t rows, int64_t groups,
                             tk_tensor &view, bool anyWordStride) {
  runtime::Status s = checkTensor(op, name, sf, 2);
  if (!s.isOk() || !(s = checkDtype(op, name, sf, TK_I32)).isOk())
    return s;
  const int64_t words = ceilDiv(groups, 4), padded = alignUp(rows, 4);
  std::string where = std::string(op) + ": " + name;
  if (sf->shape[0] != rows || sf->shape[1] != words)
    return runtime::Status::invalid(where + " (packed UE8M0) must have shape (" + std::to_string(rows) + ", " +
                                    std::to_string(words) + "), got (" + std::to_string(sf->shape[0]) + ", " +
                                    std::to_string(sf->shape[1]) + ")");
  const bool columnOk = anyWordStride ? sf->strides[1] >= rows : sf->strides[1] == padded;
  if (!((sf->strides[0] == 1 || rows <= 1) && (columnOk || words <= 1)))
    return runtime::Status::invalid(where + " (packed UE8M0) must have strides (1, " +
                                    (anyWordStride ? "at least " + std::to_string(rows) : std::to_string(padded)) +
                                    "), got (" + std::to_string(sf->strides[0]) + ", " +
                                    std::to_string(sf->strides[1]) + ")");
  view = *sf;
  view.dtype = TK_I8;
  view.ndim = 3;
  view.shape[0] = rows;
  view.shape[1] = words;
  view.shape[2] = 4;
  view.strides[0] = 4;
  view.strides[1] = 4 * (words <= 1 ? padded : sf->strides[1]);
  view.strides[2] = 1;
  return runtime::Status::ok();
}

runtime::Status checkFp32Sf(const char *op, const char *name, const tk_tensor *sf, int64_t rows, int64_t groups,
                            bool colMajor) {
  runtime::Status s = checkTensor(op, name, sf, 2);
  if (!s.isOk() || !(s = checkDtype(op, name, sf, TK_F32)).isOk())
    return s;
  auto pair = [](int64_t a, int64_t b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; };
  const std::string where = std::string(op) + ": " + name;
  if (sf->shape[0] != rows || sf->shape[1] != groups)
    return runtime::Status::invalid(where + " must have shape " + pair(rows, groups) + ", got " +
                                    pair(sf->shape[0], sf->shape[1]));
  const int64_t want0 = colMajor ? 1 : groups, want1 = colMajor ? alignUp(rows, 4) : 1;
  // An empty tensor's strides address nothing: any are fine (torch gives (1, 1) for (4, 0)).
  const bool empty = rows == 0 || groups == 0;
  if (!empty && !((sf->strides[0] == want0 || rows <= 1) && (sf->strides[1] == want1 || groups <= 1)))
    return runtime::Status::invalid(where + " must have strides " + pair(want0, want1) +
                                    (colMajor ? " (TMA-aligned column-major)" : " (row-major)") + ", got " +
                                    pair(sf->strides[0], sf->strides[1]));
  return runtime::Status::ok();
}

runtime::Status outSfView(const char *op, const char *name, const tk_tensor *sf, int64_t rows, int64_t groups,
                          uint32_t flags, tk_tensor &packedView) {
  if (flags & TK_PACKED_UE8M0)
    return packedSfView(op, name, sf, rows, groups, packedView);
  return checkFp32Sf(op, name, sf, rows, groups, flags & TK_SF_COL_MAJOR);
}

} // namespace tk::kernels::quant
