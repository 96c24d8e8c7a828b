//===- swiglu_backward_check.h - run swiglu_backward_and_per_token_cast ---===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <optional>

namespace tk::checks {

struct SwigluBackwardCase {
  int64_t h, group; ///< group: 32 or 128
  bool roundSf = false;
  std::optional<float> clamp;
  /// The routing (quant.md 5.3 with alignment = group), as SwigluCastCase.
  int64_t tokens = 4001, topk = 2, totalExperts = 72, localExperts = 9;
  uint64_t seed = 1;
};

std::string describe(const SwigluBackwardCase &c);

/// x = per_token_cast(expanded bf16 normal tokens, e4m3, g) (fp32 scales,
/// padding rows zero), grad_out bf16 normal, weights uniform [0, 1), through
/// the operator; out, x_grad, x_grad_fp8 and x_grad_sf compared bit for bit
/// with the reference (outMismatches counts out, x_grad and x_grad_fp8;
/// sfMismatches x_grad_sf), weight_grad within 1e-4 absolute + relative
/// (countMismatches; its summation order is free) and exactly 0 on unrouted
/// slots. On the GPU of `gpu`, the reference's expf values come from the
/// nvcc-compiled oracle; on the CPU path (gpu null) from the C library.
CheckResult checkSwigluBackward(GpuSession *gpu, tk_context ctx, const SwigluBackwardCase &c, bool time);

} // namespace tk::checks
