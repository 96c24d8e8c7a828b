//===- big_fuse.h - mhc_pre_big_fuse: norm_fn -> split -> sinkhorn -> apply ===//
//
// mhc_engram.md 3.8, inference only: from a token's residual row, the post
// mix, the Sinkhorn-normalised comb mix and the layer input, bit-identical
// to the chain of tk's own operators (tk_mhc_pre_norm_fn_fwd without a norm
// weight, tk_mhc_pre_split_mixes_fwd, tk_sinkhorn_normalize_fwd,
// tk_mhc_pre_apply_mix_fwd) because it runs their ops in their order:
//   1. mhc_pre_norm_fn_fwd's kernels themselves (runNormFnForward: the same
//      schedule and splits as the chain would take), its mix logits into
//      scratch memory;
//   2. the mixes kernel (here), per `rows` tokens: post from the logits'
//      second group, comb's logits from the third as a [rows, n, n] tile of
//      the Sinkhorn kernel's shape and threads (its schedule, resolved as the
//      chain's call resolves it), then Sinkhorn's steps (sinkhorn_tiles.h);
//   3. the apply kernel (apply_mix.cpp, StreamOp::PreBigFuseApply): pre
//      computed from the first group's logits where apply_mix loads it, so
//      it never leaves registers; the residual read once.
// Kernels 2 and 3 each read only the logits kernel 1 wrote. The residual is
// read twice (kernels 1 and 3), as by the reference's two kernels.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/program.h"

#include <cstdint>
#include <string>

namespace tk::kernels::mhc {

struct BigFuseMixConfig {
  int64_t streams = 4, repeat = 10; ///< n and Sinkhorn's repeat: compile-time
  /// sinkhorn_normalize_fwd's schedule as that operator resolves it for (n,
  /// repeat) (0: its heuristic): matrices per CTA and threads. Not a schedule
  /// of this kernel's own: the same tile is what makes the sums' order the same.
  int64_t rows = 0, threads = 0;
  /// The same schedule's `rolled` (1: Sinkhorn's steps as a loop; the same bits).
  bool rolled = false;
  /// The call's norm_fn kernels' `pdl` (dependentLaunchField: 0 to 2), for its other kernels too.
  int64_t pdl = 0;
  std::string key() const;
};

/// Tensors: post_logits (T, n, 1) f32 and comb_logits (T, n, n) f32 (views
/// of the logits' columns [n, 2n) and [2n, 2n + n^2): rows strided); scale
/// (1, 1, 3), base_post (1, n, 1), base_comb (1, n, n) f32; post (T, n, 1),
/// comb (T, n, n) f32. Scalars: post_mult, sinkhorn eps (f32).
dsl::BuiltKernel buildBigFuseMixes(mlir::MLIRContext &ctx, const BigFuseMixConfig &config);

/// 3.8's math in fp64 through the references of the chain (residual bf16
/// bits (T, n, H), fn (n3, n H), scale (3), base (n3)); between the steps the
/// values are rounded to f32 as the chain's tensors hold them: post (T, n),
/// comb (T, n, n), layerInput (T, H) bf16 bits (the apply step's exact order
/// over the f32 pre).
void bigFuseReference(const uint16_t *residual, const float *fn, const float *scale, const float *base, int64_t tokens,
                      int64_t n, int64_t h, float rmsEps, float preEps, float sinkhornEps, float postMult,
                      int64_t repeat, double *post, double *comb, uint16_t *layerInput);

} // namespace tk::kernels::mhc
