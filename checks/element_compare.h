//===- element_compare.h - an output element against its reference -------===//
//
// Outputs are compared bit for bit, except NaNs: the GPU's arithmetic returns
// the canonical NaN while the host's reference propagates its operand's
// payload (a bf16 NaN input comes out 0x7fc0 there, 0x7fff on the GPU), and
// no operator promises a payload. Any NaN matches a NaN.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/tk.h"

#include <cstdint>
#include <cstring>

namespace tk::checks {

/// Whether the element at `e` of type f32, bf16 or e4m3 is a NaN.
inline bool isNanElement(tk_dtype type, const void *e) {
  const auto *p = static_cast<const unsigned char *>(e);
  if (type == TK_F8_E4M3)
    return (p[0] & 0x7F) == 0x7F;
  uint32_t u = 0;
  if (type == TK_F32)
    std::memcpy(&u, p, 4);
  else { // bf16: the upper half of an f32
    uint16_t b;
    std::memcpy(&b, p, 2);
    u = (uint32_t)b << 16;
  }
  return (u & 0x7FFFFFFFu) > 0x7F800000u;
}

/// `got` matches `want` (`bytes` bytes of type f32, bf16 or e4m3): the same
/// bits, or both NaN.
inline bool sameOrBothNan(tk_dtype type, const void *got, const void *want, size_t bytes) {
  return isNanElement(type, want) ? isNanElement(type, got) : std::memcmp(got, want, bytes) == 0;
}

} // namespace tk::checks
