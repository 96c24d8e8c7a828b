//===- mix_gates.h - sigmoid-affine mix gates (mhc_engram.md 3.3, 3.6) -----===//
//
// A token's logits u (m columns) become stream weights through an affine map
// per column group g, z_j = u_j s_g + b_j, then the group's activation:
//   mhc_pre_split_mixes (m = 2n + n^2): pre = sigmoid(z) + eps on columns
//     [0, n), post = p sigmoid(z) on [n, 2n), comb = z (row-major n x n) on
//     the rest; one scale per group (3).
//   mhc_head_compute_mix (m = n): only the first group, out = sigmoid(z) + eps.
// The backward recomputes sigmoid for pre (dz = g s (1 - s)), takes post's
// from the stored output (dz = g post (1 - post / p)) and passes comb's
// gradient through; du = dz s_g. The parameter gradients, sum over tokens of
// dz (dbase) and of dz u per group (dscale), come from two kernels in the
// call's stream order: Backward, one CTA per `rows` tokens, writes du and its
// block's sums as one row of a partial buffer (P = ceil(T / rows) rows of m +
// G: dbase's, then dscale's); Reduce, one CTA, adds the rows in a fixed order
// (32 rows at a time, then the 32 lanes' sums). The result depends on T and
// the schedule's rows, not on the GPU or the SM count; no atomics.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tk::kernels::mhc {

enum class MixGateKind { Split, Head };
enum class MixGateStage { Forward, Backward, Reduce };

/// One column group of the logits: its columns [offset, offset + width) and activation.
struct MixGroup {
  enum Activation { Pre, Post, Comb };
  Activation activation;
  int64_t offset, width;
  const char *name; ///< the forward's output and the backward's gradient input: "pre", "post", "comb", "out"
};

/// The groups of `kind` with n streams, in column order.
std::vector<MixGroup> mixGroups(MixGateKind kind, int64_t n);
/// m: the logits' columns (2n + n^2, or n).
int64_t mixColumns(MixGateKind kind, int64_t n);
/// "mhc_pre_split_mixes_fwd", "mhc_head_compute_mix_bwd", ...
std::string mixGateName(MixGateKind kind, bool backward);

struct MixGateConfig {
  MixGateKind kind = MixGateKind::Split;
  MixGateStage stage = MixGateStage::Forward;
  int64_t streams = 4; ///< n: compile-time (the groups' widths)
  /// Schedule: tokens per CTA (0: 128, fewer where m > 32, to keep 32
  /// values per thread; a power of two) and threads per CTA (0: 128). The
  /// backward's partial buffer has one row per `rows` tokens.
  int64_t rows = 0, threads = 0;
  /// Backward schedule: dependentLaunchField (-1: kDefaultDependentLaunch; the reduce kernel takes the main kernel's).
  int64_t pdl = -1;
  int64_t numRows() const;
  int64_t numThreads() const { return threads ? threads : 128; }
  bool backward() const { return stage != MixGateStage::Forward; }
  std::string key() const;
};

/// The reduce kernel's rows per step (its fixed summation order).
constexpr int64_t kMixReduceRows = 32;

const OperatorSchedule<MixGateConfig> &mixGateSchedule(MixGateKind kind, bool backward);

/// Tensors, with m = mixColumns, G groups, w a group's width:
/// Forward: input (T, m) f32, unit last stride; scale (1, G), base (1, m)
///   f32; one output (T, w) f32 per group. Scalars: Split post_mult, pre_eps;
///   Head pre_eps (f32).
/// Backward: one gradient (T, w) f32 per group; input (T, m), unit last
///   stride; Split: post (T, n) f32; scale (1, G), base (1, m); grad_input
///   (T, m) f32; partial (P, m + G) f32. Scalar: Split post_mult.
/// Reduce: partial (P, m + G) f32; grad_scale (1, G), grad_base (1, m) f32.
dsl::BuiltKernel buildMixGate(mlir::MLIRContext &ctx, const MixGateConfig &config);

/// The forward's and backward's math in fp64 on host arrays (input rows
/// contiguous, m columns): `outs` one (T, w) array per group; the backward
/// takes one gradient per group (`post` the forward's f32 output, Split
/// only) and writes gradInput (T, m), gradScale (G), gradBase (m).
void mixGateForwardReference(MixGateKind kind, const float *input, int64_t tokens, int64_t n, const float *scale,
                             const float *base, float postMult, float preEps, const std::vector<double *> &outs);
void mixGateBackwardReference(MixGateKind kind, const std::vector<const float *> &grads, const float *input,
                              const float *post, int64_t tokens, int64_t n, const float *scale, const float *base,
                              float postMult, double *gradInput, double *gradScale, double *gradBase);

} // namespace tk::kernels::mhc
