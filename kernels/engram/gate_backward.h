//===- gate_backward.h - the Engram gate's backward (mhc_engram.md 4.4) ---===//
//
// For token t and stream h, with the forward's saved raw, g, rx, rk and
// a = rx rk / sqrt(H): dg = sum_d dout v; rho = 0 where (|raw| / sqrt(H)) rx
// rk < clamp (the clamp holds), else dg g (1 - g) / 2 sqrt(a / |raw|);
// grad_x = bf16(dout + rho (k wf - x raw rx^2 / H)), grad_k = bf16(rho (x wf
// - k raw rk^2 / H)), grad_v[t] = bf16(sum_h dout g_h) (heads in order), and
// grad_w_partial[p] = sum over block p's tokens of rho x k.
//
// Two kernels in the call's stream order. Rows: CTA (h, p) takes stream h of
// the contiguous tokens [p c, (p + 1) c), c = ceil(T / P), holding one row
// per tensor in registers and carrying its partial of the weight gradient
// from token to token (a loop, or with `stages` a pipeline that streams the
// rows through shared memory, with a fragment iter_arg); it stores the
// partial once, so the P rows do not depend on the SM count or on which CTA
// ran when. Value: one CTA per token sums the streams' dout g for grad_v
// (a second read of dout; one CTA cannot hold the four streams' rows and
// their four partials in registers, which the reference stages in shared
// memory instead). Schedule split_v drops the value kernel: each stream's
// CTAs write their share of grad_v's columns, reading the other streams'
// rows there while those streams' CTAs are at the same tokens (from L2).
// Schedule fused runs one kernel instead: CTA p takes every stream of its
// tokens, grad_out staged once in shared memory, the n partials in
// registers (n H / threads a thread: they fit at H = 4096, not at 7168) or,
// with shared_partials, in shared memory.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <cstdint>
#include <string>

namespace tk::kernels::engram {

struct GateBackwardConfig {
  enum class Stage { Rows, Value, Zero };
  Stage stage = Stage::Rows;
  int64_t hidden = 0;  ///< H: compile-time, as in the reference
  /// n: compile-time in the Value kernel (its sum over streams is unrolled) and in Rows with split_v.
  int64_t streams = 0;
  /// Schedule: threads per CTA (0: Rows H / 16 rounded up to a power of two, from 64 to 1024; Value and Zero
  /// H / 32, from 64 to 512).
  int64_t threads = 0;
  /// Schedule: 1, the rows kernel loads each token's four rows (dout, v, x,
  /// k) in its loop; 2 or more (0: 2), a pipeline copies them into that many
  /// versions of shared buffers (4 x 2H bytes each: 128 KB at H = 8192 with
  /// 2, within sm_80's 163 KB), the next token's rows in flight while it
  /// computes one.
  int64_t stages = 0;
  /// Schedule: 1, no value kernel: the rows kernel's CTAs of stream s also
  /// write grad_v's columns [s H / n, (s + 1) H / n) of their tokens, reading
  /// every stream's grad_out there (the other streams' rows again, from L2
  /// while their CTAs are at the same tokens). Where H is not a multiple of
  /// 8 n the call runs the value kernel instead (the same bits).
  int64_t splitV = 0;
  /// Schedule: 1, one kernel: CTA p takes all n streams of block p's tokens
  /// (n compile-time), grad_out and v streamed through shared memory once
  /// ((n + 1) x 2H bytes a stage), x and k read straight from global memory,
  /// the n partials carried in registers (or shared memory: shared_partials),
  /// grad_v written from the staged rows. Where its buffers do not fit the
  /// device, or its partials the registers, the call runs the rows and
  /// value kernels at their heuristic (logged as the heuristic's choice).
  int64_t fused = 0;
  /// Schedule (fused only): columns of every stream's row the fused kernel
  /// takes at a time, for dg's products and then for the rest; one that does
  /// not divide H takes the whole row (0: 1024 where it divides a larger H,
  /// else H: at 256 threads 4 columns a thread, 254 registers with the
  /// partials at H = 4096 on sm_90a, where the whole row spills).
  int64_t chunk = 0;
  /// Schedule (fused only): 1, the n partials in shared memory (n x 4H
  /// bytes) instead of registers, read, added to and written back chunk by
  /// chunk, and v read from global memory instead of staged (the stages then
  /// n x 2H bytes): 224 KB at H = 7168 with 2 stages, within sm_90a's 227
  /// KB; the registers hold two chunks' rows only (at 7168 on 256 threads
  /// with chunks of 1024: 253 registers on sm_90a, no spill).
  int64_t sharedPartials = 0;
  int64_t chunkColumns() const {
    const int64_t c = chunk ? chunk : 1024;
    return c < hidden && hidden % c == 0 ? c : hidden;
  }
  int64_t numStages() const { return stages ? stages : 2; }
  int64_t numThreads() const;
  std::string key() const;
};

const OperatorSchedule<GateBackwardConfig> &gateBackwardSchedule();

/// Whether the rows kernel can write grad_v's columns by streams (split_v):
/// H / n columns each, a multiple of 8 (16-byte rows of bf16).
inline bool gateBackwardSplitsValue(int64_t hidden, int64_t streams) {
  return streams >= 1 && hidden % (8 * streams) == 0;
}

/// Bytes of shared memory the fused kernel's buffers take (its stages, and the partials with shared_partials).
inline int64_t gateBackwardFusedBytes(const GateBackwardConfig &c) {
  return c.sharedPartials ? (c.numStages() * 2 + 4) * c.streams * c.hidden
                          : c.numStages() * (c.streams + 1) * 2 * c.hidden;
}

/// Whether the fused kernel's n partials fit its threads' registers (n H /
/// threads <= 128) or are in shared memory; where not, the call runs the
/// rows and value kernels.
bool gateBackwardFusedPartialsFit(const GateBackwardConfig &c);

/// The fused kernel's reductions' scratch beside its buffers (a 1 KB bound; 144 bytes on 256 threads).
constexpr int64_t kGateBackwardFusedScratch = 1024;

/// Rows: grad_out, x (T, n, H) bf16; k (T, n, H) bf16, unit last stride; v
/// as (T, 1, H) bf16, unit last stride; wf as (1, n, H) f32; dot, gate,
/// rstd_x, rstd_k as (T, n, 1) f32; grad_x, grad_k (T, n, H) bf16;
/// grad_v as (T, 1, H) bf16 with split_v or fused; grad_w_partial (P, n, H) f32.
/// Scalars: clamp, 1 / sqrt(H) (f32).
/// Value: grad_out (T, n, H) bf16; gate (T, n, 1) f32; grad_v as (T, 1, H) bf16.
/// Zero (for T = 0): grad_w_partial (P, n, H) f32, all zero.
dsl::BuiltKernel buildGateBackward(mlir::MLIRContext &ctx, const GateBackwardConfig &config);

/// 4.4's math in fp64 on host arrays (bf16 tensors as their f32 values, k
/// and v contiguous; the statistics as the forward saved them, in f32):
/// grad_x, grad_k (T, n, H), grad_v (T, H) before the bf16 rounding, rho (T,
/// n), and the weight gradient's partials (P, n, H) over the kernel's token
/// ranges. Whether the clamp holds is decided in f32, as the kernel does, so
/// that both take the same branch.
void gateBackwardReference(const float *dout, const float *x, const float *k, const float *v, const float *wf,
                           const float *dot, const float *gate, const float *rstdX, const float *rstdK, int64_t tokens,
                           int64_t streams, int64_t hidden, int64_t blocks, float clamp, double *gradX, double *gradK,
                           double *gradV, double *rho, double *gwPartial);

} // namespace tk::kernels::engram
