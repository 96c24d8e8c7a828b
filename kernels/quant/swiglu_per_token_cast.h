//===- swiglu_per_token_cast.h - SwiGLU forward + per-token e4m3 cast -----===//
//
// swiglu_forward_and_per_token_cast (spec quant.md 4.16): the MoE expert
// activation of a (gate | linear) row, optionally clamped (with counts of the
// clamped values), times the row's routing weight, quantized per token.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"
#include "kernels/quant/formats.h"
#include "kernels/quant/swiglu.h"

#include <optional>
#include <string>

namespace tk::kernels::quant {

struct SwigluPerTokenCastConfig {
  int64_t hidden = 0; ///< H: x has 2H columns, out H
  int64_t group = 128; ///< g: 128 or H
  dsl::DType in = dsl::DType::BF16; ///< BF16 or F32
  bool roundSf = false;
  bool packedSf = false; ///< out_sf as packed UE8M0 words (column-major)
  bool weights = false;  ///< rows multiplied by topk_weights.flat[pos_to_token_topk[p]] (0 for p < 0)
  bool expertMask = false; ///< pos_to_expert given: rows with a negative expert are not counted
  std::optional<float> clamp;
  /// clamped_count += (#l > c, #r > c, #r < -c). countingBlocksPerSm = 0:
  /// one tile per block, three int64 atomics per tile; k > 0: a persistent
  /// grid of k blocks per SM with block totals, three atomics per block.
  bool countClamps = false;
  int64_t countingBlocksPerSm = 0;
  uint32_t sfClampBits = 0x38D1B717u; ///< CLAMP of the scale rule: sf_clamp_min, default fp32(1e-4)
  int64_t xAlignBytes = 16;
  int64_t outAlignBytes = 16;
  /// The row count is a multiple of tileM() (the entry point checks): the
  /// kernel is compiled with that promise and its loads need no row masks.
  bool wholeTiles = false;

  /// Whole rows when g = H, else the largest divisor of 2048 and H (at least
  /// g) wide, with rows to make 4096 elements per half where they fit: 16
  /// values per thread (a sweep of the schedule's rows at H = 2048: 2 rows
  /// of 2048 took the weighted form from 63.6% of the copy ceiling to 75.3%,
  /// the counting form from 47.2% to 49.9%).
  int64_t tileK() const;
  int64_t tileM() const;
  /// Rows per tile and threads per block instead of the defaults above and
  /// 256 (the schedule); 0 = the default.
  int64_t tileRows = 0, threadCount = 0;
  int64_t threads() const { return threadCount ? threadCount : 256; }
  int64_t groups() const { return ceilDiv(hidden, group); }
  std::string key() const;
};

dsl::BuiltKernel buildSwigluPerTokenCast(mlir::MLIRContext &ctx, const SwigluPerTokenCastConfig &config);

/// The schedule: rows per tile, threads per block, and for the counting
/// kernel a persistent grid of blocks per SM carrying block totals.
const OperatorSchedule<SwigluPerTokenCastConfig> &swigluPerTokenSchedule();

/// C++ reference for rows [rowBegin, rowEnd). x (N, 2H) contiguous (bf16 bits
/// or fp32); weights: null or topk_weights flat with posToTokenTopk (N);
/// posToExpert: null or (N) (rows < 0 are neither written nor counted);
/// out (N, H) e4m3 codes; sf (N, groups) at sf[i * sf0 + j * sf1]; counts:
/// null or three counters the row's clamp counts are added to.
struct SwigluRows {
  const void *x;
  const int32_t *posToTokenTopk = nullptr;
  const float *weights = nullptr;
  int64_t numWeights = 0;
  const int32_t *posToExpert = nullptr;
};
void swigluPerTokenCastReference(const SwigluRows &in, const SwigluPerTokenCastConfig &c, const ExpFunction &expf,
                                 int64_t rowBegin, int64_t rowEnd, uint8_t *out, float *sf, int64_t sf0, int64_t sf1,
                                 int64_t *counts);

} // namespace tk::kernels::quant
