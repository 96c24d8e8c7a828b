//===- expand_to_fused_reference.cpp - the C++ reference ------------------===//
#include "kernels/moe/expand_to_fused.h"

#include <cstdint>
#include <cstring>

namespace tk::kernels::moe {

using namespace tk::dsl;

void expandReference(const void *src, int64_t tokens, int64_t topk, const int32_t *tokenTopkToPos,
                     const int32_t *posToExpert, int64_t positions, int64_t width, int64_t bytes, bool colMajor,
                     int64_t ld, void *dst) {
  auto *in = static_cast<const unsigned char *>(src);
  auto *out = static_cast<unsigned char *>(dst);
  auto put = [&](int64_t p, const unsigned char *row) { // row == nullptr: zeros
    for (int64_t j = 0; j < width; ++j) {
      unsigned char *at = out + (colMajor ? j * ld + p : p * width + j) * bytes;
      if (row)
        std::memcpy(at, row + j * bytes, bytes);
      else
        std::memset(at, 0, bytes);
    }
  };
  for (int64_t p = 0; p < positions; ++p)
    if (posToExpert[p] < 0)
      put(p, nullptr);
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t s = 0; s < topk; ++s)
      if (int32_t p = tokenTopkToPos[t * topk + s]; p >= 0 && p < positions)
        put(p, in + t * width * bytes);
}

} // namespace tk::kernels::moe
