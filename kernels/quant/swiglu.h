//===- swiglu.h - SwiGLU's elementwise math, in the DSL and as reference --===//
//
// quant.md 4.16-4.18 and 8.8: the gate half l and the linear half r of each
// row, optionally clamped (l from above only, r on both sides), give
// y = fl(fl(l / fl(1 + expf(-l))) * r). The exponential is CUDA's device expf
// on the GPU (the DSL's `exp`) and is a parameter of the reference, so the
// same reference checks the CPU path (C library expf) and the GPU (a table of
// device values, checks/expf_oracle.h).
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/program.h"

#include <functional>
#include <optional>

namespace tk::kernels::quant {

using ExpFunction = std::function<float(float)>;

#ifndef TK_RUNTIME_ONLY // a DSL helper, for the programs
/// y = silu(clamp(l)) * clamp(r), element by element, as f32; `form` says
/// how the SiLU's division is carried out (the value is the same).
dsl::Tile swigluForward(const dsl::Tile &l, const dsl::Tile &r, std::optional<float> clamp,
                        dsl::QuotientForm form = dsl::QuotientForm::Fast);
#endif

/// The same for one element.
float swigluForwardReference(float l, float r, std::optional<float> clamp, const ExpFunction &expf);

} // namespace tk::kernels::quant
