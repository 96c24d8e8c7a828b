//===- batched_transpose_reference.cpp - the C++ reference ----------------===//
#include "kernels/transpose/batched_transpose.h"

#include <cstdint>
#include <cstring>

namespace tk::kernels::transpose {

using namespace tk::dsl;

void batchedTransposeReference(const void *x, int64_t elementBytes, int64_t batch, int64_t rows, int64_t cols,
                               int64_t batchStride, int64_t rowStride, void *out) {
  auto *src = static_cast<const uint8_t *>(x);
  auto *dst = static_cast<uint8_t *>(out);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        std::memcpy(dst + ((b * cols + c) * rows + r) * elementBytes,
                    src + (b * batchStride + r * rowStride + c) * elementBytes, elementBytes);
}

} // namespace tk::kernels::transpose
