//===- swiglu_backward.h - SwiGLU backward + per-token e4m3 cast ----------===//
//
// swiglu_backward_and_per_token_cast (spec quant.md 4.18): from the e4m3
// per-token quantized forward input, the weighted forward output, the input
// gradient in bf16 and per-token e4m3, and the routing-weight gradient.
// Two kernels. The first has one block per chunk of a row (a few hundred to
// a thousand columns of each half, eight values per thread): it writes the
// chunk's outputs and its share of the row's dot product sum(go * act) into
// row_dots (rows, chunks), a buffer the entry point allocates in the call's
// stream order. The second fills weight_grad per slot: the sum, in one fixed
// order, of the chunks of row token_topk_to_pos[s], or zero for -1 (the
// mapping is consistent, quant.md 4.18 step 9). The result is deterministic;
// whole rows per block (224 registers, one block per SM) were 30-36% of
// the copy ceiling.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"
#include "kernels/quant/formats.h"
#include "kernels/quant/swiglu.h"

#include <optional>
#include <string>

namespace tk::kernels::quant {

struct SwigluBackwardConfig {
  int64_t hidden = 0;  ///< H: x has 2H columns
  int64_t group = 128; ///< g: 32 or 128, for x's scales and the gradient's
  bool roundSf = false;
  std::optional<float> clamp;
  int64_t xAlignBytes = 16, gradAlignBytes = 16, outAlignBytes = 16;
  /// Columns of each half per block (a multiple of g dividing H) and threads
  /// per block; 0 = the defaults: the largest of 1024, 512, 256, 128 that
  /// divides H (else H), and eight columns per thread (at least 32 threads;
  /// 256 for whole rows).
  int64_t chunkCols = 0, threads = 0;
  /// Software pipelining (tile.pipeline): each block walks rowsPerBlock()
  /// rows down its chunk, their inputs (x's two halves and grad_out)
  /// copied into shared memory stages() - 1 rows ahead. -1 / 0: the
  /// defaults (none: one row per block, loaded into registers).
  int64_t pipelineStages = -1, tilesPerBlock = 0;
  int64_t stages() const;
  int64_t rowsPerBlock() const { return tilesPerBlock ? tilesPerBlock : stages() ? 4 : 1; }
  int64_t stageBytes() const { return 4 * chunk(); }
  int64_t chunk() const;
  int64_t numChunks() const { return hidden / chunk(); }
  int64_t numThreads() const;
  /// Why the chunk and threads cannot be built, or "".
  std::string tileError() const;
  std::string key() const;
};

/// The per-chunk kernel's schedule: its chunk, threads and pipeline.
const OperatorSchedule<SwigluBackwardConfig> &swigluBackwardSchedule();

/// The per-chunk kernel: tensors x (N, 2H) e4m3, x_sf (N, 2H / g) f32,
/// grad_out (N, H) bf16, pos_to_token_topk (N, 1) i32, weight (T k) f32 ->
/// out (N, H) bf16, x_grad_fp8 (N, 2H) e4m3, x_grad_sf (N, 2H / g) f32,
/// x_grad (N, 2H) bf16, row_dots (N, numChunks()) f32.
dsl::BuiltKernel buildSwigluBackward(mlir::MLIRContext &ctx, const SwigluBackwardConfig &config);
/// token_topk_to_pos (T k, 1) i32, row_dots (N, chunks) f32 -> weight_grad
/// (T k, 1) f32: weight_grad[s] = sum_c row_dots[token_topk_to_pos[s], c],
/// 0 where token_topk_to_pos[s] is negative or not below N.
struct WeightGradConfig {
  int64_t chunks = 1; ///< columns of row_dots (SwigluBackwardConfig::numChunks)
  std::string key() const;
};
dsl::BuiltKernel buildWeightGradFromRowDots(mlir::MLIRContext &ctx, const WeightGradConfig &config);

/// C++ reference for rows [rowBegin, rowEnd): the per-element math of
/// quant.md 4.18 steps 1-7, and rowDot[p] = sum_j fl(go * act), summed in
/// double (the spec leaves the fp32 summation order free and compares with a
/// tolerance; a sequential fp32 sum was itself off by more than 1e-4 for
/// rows of 7168 on the H200).
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
