//===- norm_fn.h - mhc_pre_norm_fn: RMS-normalised mix logits (3.2) --------===//
//
// A token's residual row x (n bf16 streams of H, flattened to G = n H)
// against fn (n3 x G f32, n3 <= 32; the norm weight w folded in: fn w):
//   mul[t, j] = sum_k x[t, k] tf32(W[j, k]) on tensor cores (tile.dot),
//   ss[t] = sum_k x[t, k]^2, r = rsqrt(ss / G + eps), mix = mul r.
// Forward: one CTA per `tokens` rows walks G in chunks, carrying the product
// (a [tokens, 32] tile: fn's rows past n3 read as zero) and the sums of
// squares; writes mix, mul and ss. With `stages` >= 2 the chunks stream
// through shared memory (cp.async, the next stages in flight). With `splits`
// S > 1 the grid has S CTAs per row block, each walking G / S, their sums
// into scratch memory ([T, S 32] and [T, S]); a Finish kernel adds them in
// order s = 0..S-1 (spec 3.2's split-K partials) and writes mix, mul, ss.
// Backward, two kernels in the call's stream order: Norm, per token, dmul =
// dmix r and dss = -dr r / 2 (ss + eps G) with dr = sum_j dmix mul, into
// scratch memory ([T, 32], zero past n3); Slab, one CTA per `chunk` columns
// of G walking every token in blocks (fixed order, no atomics): dW[j, k] +=
// sum_t dmul[t, j] x[t, k] (tf32(dmul), as the reference) and
// dres = bf16(acc + sum_j dmul W~ + 2 x dss), acc the residual-gradient
// buffer when accumulating; at the end grad_fn = dW (w dW when folded) and
// grad_norm_weight[k] = sum_j dW[j, k] fn[j, k].
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/arguments.h"
#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <cstdint>
#include <string>

namespace tk::kernels::mhc {

enum class NormFnStage { Forward, Finish, Norm, Slab };

struct NormFnConfig {
  NormFnStage stage = NormFnStage::Forward;
  int64_t width = 0;       ///< G = n H: compile-time, as in the reference
  bool weighted = false;   ///< a norm weight folded into fn
  bool accumulate = false; ///< Slab: add into the residual-gradient buffer
  /// Schedule: tokens per CTA (forward) or per step (Slab) (a multiple of
  /// 16; 0: 128 forward, 32 Slab), G columns per step (forward) or per CTA
  /// (Slab) (a multiple of 8 dividing G), threads (0: 256 forward, else 128).
  int64_t tokens = 0, chunk = 0, threads = 0;
  /// Forward (and Finish, which must agree): pipeline stages (0: the
  /// forward 2, else 1, no pipeline) and K splits (0: the forward takes 8,
  /// 4 or 2, the first that divides G's chunks, else 1).
  int64_t stages = 0, splits = 0;
  /// Forward: blocks per SM its registers must allow (launch bounds; 0: the
  /// default, 2: what the default's 57 KB of shared memory allows on sm_80,
  /// and without the bound ptxas fit sm_80 in 80 registers with a spill).
  int64_t blocks = 0;
  /// Forward: 1 (and unset, -1) runs the product as wgmma where the target
  /// has it (sm_90a; tile.dot's `warpgroup`), fn's chunk read by the tensor
  /// core from shared memory; 0 mma.sync (every warp reads its fragments).
  int64_t wgmma = -1;
  /// Forward: dependentLaunchField (-1: kDefaultDependentLaunch; Finish takes the forward's, and so do big_fuse's other
  /// kernels).
  int64_t pdl = -1;
  int64_t dependentLaunch() const { return pdl >= 0 ? pdl : kDefaultDependentLaunch; }
  bool onWarpgroups() const { return wgmma != 0; }
  int64_t numBlocks() const { return blocks ? blocks : 2; }
  int64_t numStages() const { return stages ? stages : stage == NormFnStage::Forward ? 2 : 1; }
  int64_t numSplits() const;
  /// Norm's default is 128 tokens: it writes dmul transposed as well, and a
  /// [32, 128] transpose fills 128 threads where a [32, 32] one would not.
  int64_t numTokens() const {
    return tokens ? tokens : stage == NormFnStage::Norm || stage == NormFnStage::Forward ? 128 : 32;
  }
  /// The default halves 64 (forward, Slab) or 128 until it divides G (down to 8).
  int64_t numChunk() const;
  int64_t numThreads() const { return threads ? threads : stage == NormFnStage::Forward ? 256 : 128; }
  std::string key() const;
};

/// fn's rows are padded to this many in the kernels' tiles (the MMA's N).
constexpr int64_t kNormFnMaxMixes = 32;

const OperatorSchedule<NormFnConfig> &normFnSchedule(bool backward);

/// An entry point's checks once its tensors bound T, n, H, n3 and G: n in
/// [1, 32] and H within i32 (before n H is formed), n3 in [1, 32], G = n H a
/// positive multiple of 8, max(T, n3) G within i32, eps finite and positive.
runtime::Status checkNormFnLimits(const char *op, Arguments &args, float eps);

/// Forward: residual (T, G) bf16; fn (n3, G) f32; [norm_weight (1, G) f32];
///   mix, mul (T, n3) f32; ss (T, 1) f32. Scalar: eps (f32).
/// Norm: grad_mix, mul (T, n3) f32; ss (T, 1) f32; dmul (T, 32), dmul_t
///   (32, T) (the same, transposed), dss (T, 1) f32. Scalar: eps.
/// Slab: residual (T, G) bf16; dmul (T, 32), dmul_t (32, T), dss (T, 1) f32; fn (n3, G) f32;
///   [norm_weight (1, G)]; grad_residual (T, G) bf16 (read too when
///   accumulating); grad_fn (n3, G) f32; [grad_norm_weight (1, G) f32].
/// Finish: mul_parts (T, S 32), ss_parts (T, S) f32; mix, mul (T, n3), ss
///   (T, 1) f32. Scalar: eps.
dsl::BuiltKernel buildNormFn(mlir::MLIRContext &ctx, const NormFnConfig &config);

/// tk_mhc_pre_norm_fn_fwd's kernels, scheduled (`c`: width and weighted
/// set, then the schedule they ran): x (T, G) bf16, fn, w1 (1, G) or null;
/// mix, mul (T, n3), ss (T, 1). tk_mhc_pre_big_fuse runs the same, so that
/// its logits are the chain's.
runtime::Status runNormFnForward(tk_context ctx, NormFnConfig &c, const tk_tensor &x, const tk_tensor *fn,
                                 const tk_tensor *w1, tk_tensor *mix, tk_tensor *mul, tk_tensor *ss, float eps,
                                 tk_stream stream);

/// 3.2's math in fp64 from host arrays (residual as bf16 bits, T x G; fn n3
/// x G; w null or G), with fn w rounded to TF32 as the kernel's operand:
/// forward mix, mul (T x n3), ss (T); backward from gradMix (and acc, T x G
/// bf16 bits or null): gradResidual (T x G, before the bf16 rounding),
/// gradFn (n3 x G), gradW (G, when w). dmul is rounded to TF32 as in the
/// reference's step 3.
void normFnForwardReference(const uint16_t *residual, const float *fn, const float *w, int64_t tokens, int64_t mixes,
                            int64_t width, float eps, double *mix, double *mul, double *ss);
void normFnBackwardReference(const float *gradMix, const uint16_t *residual, const float *fn, const float *w,
                             const float *mul, const float *ss, const uint16_t *acc, int64_t tokens, int64_t mixes,
                             int64_t width, float eps, double *gradResidual, double *gradFn, double *gradW);

} // namespace tk::kernels::mhc
