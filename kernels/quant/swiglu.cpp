//===- swiglu.cpp ---------------------------------------------------------===//
#include "kernels/quant/swiglu.h"

#include <cmath>

using namespace tk::dsl;

namespace tk::kernels::quant {

Tile swigluForward(const Tile &l, const Tile &r, std::optional<float> clamp, QuotientForm form) {
  return map({l.to(DType::F32), r.to(DType::F32)}, DType::F32, [clamp, form](const std::vector<Scalar> &in) {
    Scalar gate = in[0], lin = in[1];
    if (clamp) {
      Scalar c = gate.constantF32(*clamp), negC = gate.constantF32(-*clamp);
      gate = min(gate, c);
      lin = max(min(lin, c), negC);
    }
    return silu(gate, form) * lin;
  });
}

} // namespace tk::kernels::quant
