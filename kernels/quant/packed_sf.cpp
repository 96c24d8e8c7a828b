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

} // namespace tk::kernels::quant
