//===- swiglu_backward.h - SwiGLU backward + per-token e4m3 cast ----------===//
//
// swiglu_backward_and_per_token_cast (spec quant.md 4.18): from the e4m3
// per-token quantized forward input, the weighted forward output, the input
// gradient in bf16 and per-token e4m3, and the routing-weight gradient.
// Two kernels: one per row (whole rows per block) writes the row outputs and
// the row's dot product sum(go * act) straight into weight_grad at
// pos_to_token_topk[p] (tile.scatter); a second one zeroes the weight_grad
// slots whose token_topk_to_pos is -1.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/quant/formats.h"
#include "kernels/quant/swiglu.h"
#include "tk/dsl/KernelBuilder.h"

#include <optional>
#include <string>

namespace tk::kernels::quant {

struct SwigluBackwardConfig {
  int64_t hidden = 0;  ///< H: x has 2H columns
  int64_t group = 128; ///< g: 32 or 128, for x's scales and the gradient's
  bool roundSf = false;
  std::optional<float> clamp;
  int64_t xAlignBytes = 16, gradAlignBytes = 16, outAlignBytes = 16;
  std::string key() const;
};

/// The per-row kernel: tensors x (N, 2H) e4m3, x_sf (N, 2H / g) f32,
/// grad_out (N, H) bf16, pos_to_token_topk (N, 1) i32, weight (T k) f32 ->
/// out (N, H) bf16, x_grad_fp8 (N, 2H) e4m3, x_grad_sf (N, 2H / g) f32,
/// x_grad (N, 2H) bf16, weight_grad (T k) f32 (scattered).
dsl::BuiltKernel buildSwigluBackward(mlir::MLIRContext &ctx, const SwigluBackwardConfig &config);
/// weight_grad[s] = 0 where token_topk_to_pos[s] is negative, else unchanged
/// (with `all`: 0 everywhere, for calls without rows).
dsl::BuiltKernel buildZeroUnroutedWeightGrad(mlir::MLIRContext &ctx, bool all);

/// C++ reference for rows [rowBegin, rowEnd): the per-element math of
/// quant.md 4.18 steps 1-7, and rowDot[p] = sum_j fl(go * act), summed in
/// double (the spec leaves the fp32 summation order free and compares with a
/// tolerance; a sequential fp32 sum was itself off by more than 1e-4 for
/// rows of 7168 on the H200, S4 run 3).
struct SwigluBackwardRows {
  const uint8_t *xq;
  const float *xs;
  const uint16_t *gradOut;
  const float *weight;
  const int32_t *posToTokenTopk;
  int64_t numWeights;
};
void swigluBackwardReference(const SwigluBackwardRows &in, const SwigluBackwardConfig &c, const ExpFunction &expf,
                             int64_t rowBegin, int64_t rowEnd, uint16_t *out, uint8_t *xGradFp8, float *xGradSf,
                             uint16_t *xGrad, float *rowDot);

} // namespace tk::kernels::quant
