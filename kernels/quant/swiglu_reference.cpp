//===- swiglu_reference.cpp - the C++ reference ---------------------------===//
#include "kernels/quant/swiglu.h"

#include <cmath>
#include <cstdint>
#include <optional>

namespace tk::kernels::quant {

using namespace tk::dsl;

float swigluForwardReference(float l, float r, std::optional<float> clamp, const ExpFunction &expf) {
  if (clamp) {
    l = std::fmin(l, *clamp);
    r = std::fmax(std::fmin(r, *clamp), -*clamp);
  }
  float t = 1.0f + expf(-l);
  float silu = l / t;
  return silu * r;
}

} // namespace tk::kernels::quant
