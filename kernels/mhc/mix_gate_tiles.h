//===- mix_gate_tiles.h - the mix gates' activations as DSL tiles ----------===//
//
// Shared by the mix-gate kernels (mix_gates.cpp) and the fused kernels that
// must reproduce them bit for bit (big_fuse.cpp, apply_mix.cpp's big-fuse
// form): the same scalar ops in the same order. DSL programs only.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/mhc/mix_gates.h"
#include "tk/dsl/KernelBuilder.h"

namespace tk::kernels::mhc {

/// A column group's scale and base, as tiles of the logits' shape.
struct Affine {
  dsl::Tile scale, base;
};

/// sigmoid(u s + b), one map: the pre and post groups' first step.
inline dsl::Tile affineSigmoid(const dsl::Tile &u, const Affine &a) {
  return dsl::map({u, a.scale, a.base}, dsl::DType::F32,
                  [](const std::vector<dsl::Scalar> &v) { return sigmoid(v[0] * v[1] + v[2]); });
}

/// A group's forward output from its logits u: pre = sigmoid(z) + pre_eps,
/// post = post_mult sigmoid(z), comb = z, with z = u s + b.
inline dsl::Tile gateActivation(MixGroup::Activation activation, const dsl::Tile &u, const Affine &a,
                                const dsl::Uniform *postMult, const dsl::Uniform *preEps) {
  using dsl::Scalar;
  if (activation == MixGroup::Comb)
    return u * a.scale + a.base;
  dsl::Tile y = affineSigmoid(u, a);
  if (activation == MixGroup::Pre)
    return dsl::map({y}, dsl::DType::F32, [&](const std::vector<Scalar> &v) { return v[0] + v[0].uniform(*preEps); });
  return dsl::map({y}, dsl::DType::F32, [&](const std::vector<Scalar> &v) { return v[0].uniform(*postMult) * v[0]; });
}

} // namespace tk::kernels::mhc
