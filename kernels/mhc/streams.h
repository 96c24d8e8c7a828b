//===- streams.h - mHC's n-stream kernels (mhc_engram.md 3.1, 3.5, 3.7) ---===//
//
// The residual of a token is n bf16 streams of H columns, (T, n, H). These
// kernels move between one stream and n: expand_to_mhc copies a hidden row
// into every stream (backward: their sum), mhc_pre_apply_mix collapses the
// streams with per-token weights, mhc_post writes a layer's output back and
// mixes the old streams with the n x n comb matrix. Every per-element sum
// runs in the spec's normative order with one rounding per term (fma), so
// that the fused mHC kernels (big_fuse, multilayer recompute) can reproduce
// them bit for bit:
//   expand bwd:  acc = 0; acc += f(dout[m]) for m = 0..n-1; bf16(acc)
//   apply fwd:   acc = 0; acc = fma(mix[m], f(x[m]), acc) for m = 0..n-1
//   apply bwd:   dx[m] = bf16(fma(mix[m], f(dout), f(acc[m]) or 0))
//   post fwd:    acc = post[o] f(y); acc = fma(comb[i, o], f(R[i]), acc), i = 0..n-1
//   post bwd:    dres[i] = comb[i, 0] f(dout[0]), then fma over o = 1..n-1;
//                dy likewise with post[o]
// The sums over H (apply bwd's dmix, post bwd's dcomb and dpost) are
// per-thread partials carried across the H chunks and one block reduction:
// fixed order, within fp32 rounding of the exact sums.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tk::kernels::mhc {

enum class StreamOp {
  ExpandFwd,
  ExpandBwd,
  ApplyMixFwd,
  ApplyMixBwd,
  PostFwd,
  PostBwd,
  PreBigFuseApply,     ///< apply fwd with pre from its logits (big_fuse.h)
  MultilayerRecompute, ///< L x (apply fwd, post fwd), the residual kept on chip (3.9)
};

/// "expand_to_mhc_fwd", ...: the kernel's and its schedule's name.
const char *streamOpName(StreamOp op);
/// Whether the kernel sums over H (one CTA per `rows` tokens, a loop over
/// the H chunks) rather than tiling (tokens, H).
bool sumsOverHidden(StreamOp op);

struct StreamConfig {
  StreamOp op = StreamOp::ExpandFwd;
  int64_t streams = 4, hidden = 0; ///< n, H: compile-time, as in the reference
  bool accumulate = false;         ///< apply bwd: dx adds to the buffer it overwrites
  int64_t layers = 0, postLayers = 0; ///< multilayer recompute: L and Lp (L - 1 or L)
  /// Schedule: tokens per CTA (0: 1 for sums over H, else 1024 / cols),
  /// columns per tile (0: chunkColumns of 256 for sums over H, else of
  /// 1024), threads per CTA (0: rows x cols / 2 for sums over H, else / 8;
  /// from 32 to 256).
  int64_t rows = 0, cols = 0, threads = 0;
  /// Schedule (sums over H): versions of the shared chunks in the pipeline (0: 3).
  int64_t stages = 0;
  /// big_fuse's apply kernel: its call's norm_fn kernels' `pdl` (dependentLaunchField; 0 elsewhere).
  int64_t pdl = 0;
  int64_t tileRows() const;
  int64_t numStages() const { return stages ? stages : 3; }
  int64_t tileCols() const;
  int64_t numThreads() const;
  std::string key() const;
};

const OperatorSchedule<StreamConfig> &streamSchedule(StreamOp op);

/// The largest power of two from 32 up to `most` that divides H; without
/// one, 256 (H >= 256: the last chunk partial) or H's power-of-two ceiling
/// (a tile wider than H, stored padded).
int64_t chunkColumns(int64_t hidden, int64_t most);

/// Each thread's contiguous access in a kernel that sums over H: its
/// share of a tile row (cols / threads bf16 elements; the layout would
/// otherwise give each thread 16 bytes and leave threads idle), 4 to 16.
int64_t sumAccessBytes(const StreamConfig &config);

/// The alignment (bytes) rows of H bf16 columns keep: 16 for H % 8 == 0.
int64_t streamRowAlignBytes(int64_t hidden);

/// Tensors (all contiguous):
///  ExpandFwd:   hidden (T, 1, H) bf16; out (T, n, H) bf16
///  ExpandBwd:   grad_out (T, n, H) bf16; grad_hidden (T, 1, H) bf16
///  ApplyMixFwd: x (T, n, H) bf16, mix (T, n, 1) f32; out (T, 1, H) bf16
///  ApplyMixBwd: grad_out (T, 1, H), x (T, n, H) bf16, mix (T, n, 1) f32,
///               [accumulate: grad_x_in (T, n, H) bf16]; grad_x (T, n, H) bf16, grad_mix (T, n, 1) f32
///  PostFwd:     x (T, 1, H), residual (T, n, H) bf16, post (T, n, 1), comb (T, n, n) f32; out (T, n, H) bf16
///  PostBwd:     grad_out (T, n, H), x (T, 1, H), residual (T, n, H) bf16, post (T, n, 1), comb (T, n, n)
///               f32; grad_x (T, 1, H), grad_residual (T, n, H) bf16, grad_post (T, n, 1), grad_comb (T, n, n) f32
///  PreBigFuseApply: x (T, n, H) bf16, pre_logits (T, n, 1) f32 (the logits' first n columns: rows strided),
///               scale (1, 1, 3), base_pre (1, n, 1) f32; out (T, 1, H) bf16. Scalar: pre_eps (f32)
///  MultilayerRecompute (2-D views, which keep 10 layers' arguments within a launch's 4 KB of parameters):
///               initial_residual (T, n H) bf16; per layer l < L: pre_mix (T, n) f32; per l < Lp:
///               layer_output (T, H) bf16, post_mix (T, n), comb_mix (T, n n) f32; outputs: per l < L
///               layer_input (T, H) bf16; per l < Lp residual (T, n H) bf16
dsl::BuiltKernel buildStreamKernel(mlir::MLIRContext &ctx, const StreamConfig &config);
dsl::BuiltKernel buildExpandKernel(mlir::MLIRContext &ctx, const StreamConfig &config);
dsl::BuiltKernel buildApplyMixKernel(mlir::MLIRContext &ctx, const StreamConfig &config);
dsl::BuiltKernel buildPostKernel(mlir::MLIRContext &ctx, const StreamConfig &config);
dsl::BuiltKernel buildMultilayerKernel(mlir::MLIRContext &ctx, const StreamConfig &config);

// References (host arrays, contiguous, bf16 as uint16_t bits), the math above step for step.
void expandForwardReference(const uint16_t *hidden, int64_t tokens, int64_t streams, int64_t h, uint16_t *out);
void expandBackwardReference(const uint16_t *gradOut, int64_t tokens, int64_t streams, int64_t h, uint16_t *gradHidden);
void applyMixForwardReference(const uint16_t *x, const float *mix, int64_t tokens, int64_t streams, int64_t h,
                              uint16_t *out);
/// gradX: in, the accumulation buffer when `accumulate`; out, dx. gradMix
/// in fp64 (the exact sums), and `gradMixScale` (T, n) the sums of |terms|.
void applyMixBackwardReference(const uint16_t *gradOut, const uint16_t *x, const float *mix, int64_t tokens,
                               int64_t streams, int64_t h, bool accumulate, uint16_t *gradX, double *gradMix,
                               double *gradMixScale);
void postForwardReference(const uint16_t *x, const uint16_t *residual, const float *post, const float *comb,
                          int64_t tokens, int64_t streams, int64_t h, uint16_t *out);
/// 3.9: layerInput[l] = apply(R_l, pre[l]); for l < Lp residual[l] = R_{l+1} = post(layerOutput[l], R_l,
/// post[l], comb[l]), R_0 = initial (each array T x its row, contiguous).
void multilayerRecomputeReference(const uint16_t *initial, const std::vector<const float *> &pre,
                                  const std::vector<const uint16_t *> &layerOutput,
                                  const std::vector<const float *> &post, const std::vector<const float *> &comb,
                                  int64_t tokens, int64_t streams, int64_t h, const std::vector<uint16_t *> &layerInput,
                                  const std::vector<uint16_t *> &residual);
/// gradPost (T, n) and gradComb (T, n, n) in fp64 with their sums of |terms|.
void postBackwardReference(const uint16_t *gradOut, const uint16_t *x, const uint16_t *residual, const float *post,
                           const float *comb, int64_t tokens, int64_t streams, int64_t h, uint16_t *gradX,
                           uint16_t *gradResidual, double *gradPost, double *gradPostScale, double *gradComb,
                           double *gradCombScale);

} // namespace tk::kernels::mhc
