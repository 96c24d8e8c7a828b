//===- fused_mhc_check.h - mhc_pre_big_fuse and mhc_multilayer_recompute ---===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct BigFuseCase {
  int64_t tokens, streams = 4, hidden;
  int64_t repeat = 10;
  float postMult = 1.0f;
  uint64_t seed = 1;
};

struct MultilayerCase {
  int64_t tokens, streams = 4, hidden, layers, posts; ///< L, and Lp (L or L - 1)
  uint64_t seed = 1;
};

std::string describe(const BigFuseCase &c);
std::string describe(const MultilayerCase &c);

/// mhc_engram.md 3.8's draws (residual and fn as 3.2's, scale and base randn
/// 0.1, every eps 1e-6) through tk_mhc_pre_big_fuse twice (into poisoned
/// buffers) and through the chain of tk's operators it fuses (norm_fn
/// without a weight, split_mixes, sinkhorn, apply_mix) on the GPU of `gpu`
/// or the CPU path: every output bit-identical to the chain's and from call
/// to call (the spec's torch.equal), and near the fp64 chain of references
/// (post and comb 1e-3 (1 + |ref|), layer_input 1e-2 + 1.6e-2 |ref|). bytes:
/// 3.8 item 4's minimum (the residual read once).
CheckResult checkBigFuse(GpuSession *gpu, tk_context ctx, const BigFuseCase &c, bool time);

/// 3.9's draws (randn inputs) through tk_mhc_multilayer_recompute twice and
/// through tk_mhc_pre_apply_mix_fwd and tk_mhc_post_fwd layer by layer: every
/// layer input and residual bit-identical to the chain's, to the reference's
/// (multilayerRecomputeReference) and from call to call. bytes: 3.9 item 4's
/// fused traffic.
CheckResult checkMultilayer(GpuSession *gpu, tk_context ctx, const MultilayerCase &c, bool time);

} // namespace tk::checks
