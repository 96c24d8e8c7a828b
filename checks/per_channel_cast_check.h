//===- per_channel_cast_check.h - run the per-channel casts, check, time --===//
#pragma once

#include "checks/expf_oracle.h"
#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <optional>
#include <vector>

namespace tk::checks {

struct PerChannelCastCase {
  int64_t m, k, blockM;
  tk_dtype in; ///< TK_BF16 or TK_F32 (bf16 only when transposed)
  bool roundSf;
  bool transposed; ///< tk_per_channel_cast_and_transpose, else tk_per_channel_cast
  uint64_t seed = 1;
  /// tk_per_channel_cast_fused with a per-token quantized x: random e4m3
  /// codes and random (not power-of-two) fp32 multipliers per 128 channels.
  bool quantized = false;
  /// tk_swiglu_forward_and_per_channel_cast_and_transpose: x is bf16 (m, 2k)
  /// and `transposed` false means without_transpose.
  bool swiglu = false;
  std::optional<float> clamp;
  /// per_channel_cast_fused with the row gather: m is the token count, the
  /// output has the rows of a MoE routing (quant.md 5.3, alignment 128) of
  /// `topk` of `totalExperts` experts, `localExperts` local (0: no gather).
  int64_t gatherTopk = 0, totalExperts = 72, localExperts = 9;
};

std::string describe(const PerChannelCastCase &c);

/// Random normal input through the operator, out and out_sf compared bit for
/// bit with the C++ reference; on the GPU of `gpu` (timed when `time`), or on
/// the CPU path when `gpu` is null.
/// A SwiGLU case's x (or any case's, when `input` is given) may be passed in
/// to share one random input among cases of one shape. SwiGLU references use
/// the C library's expf on the CPU path and `deviceExp` on the GPU.
CheckResult checkPerChannelCast(GpuSession *gpu, tk_context ctx, const PerChannelCastCase &c, bool time,
                                const std::vector<uint8_t> *input = nullptr, const ExpTable *deviceExp = nullptr);

} // namespace tk::checks
