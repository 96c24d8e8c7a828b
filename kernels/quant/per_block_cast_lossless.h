//===- per_block_cast_lossless.h - FP4 -> FP8 re-blocking (quant.md 4.9) --===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"
#include "kernels/quant/formats.h"

#include <string>

namespace tk::kernels::quant {

/// Everything the generated code depends on; num_tokens stays dynamic.
struct PerBlockLosslessConfig {
  int64_t hidden = 0;                 ///< K (logical; x is (M, K / 2) bytes), K % 32 == 0
  int64_t inBlockM = 1, inBlockK = 32; ///< (b_in, g_in) of the input scale factors
  int64_t outBlockM = 128, outBlockK = 128; ///< (b_out, g_out): multiples of the input block
  bool inPackedSf = false;  ///< input scale factors as packed UE8M0 words (byte view)
  bool outPackedSf = false; ///< output scale factors as packed UE8M0 words (byte view)
  int64_t xAlignBytes = 16, outAlignBytes = 16;

  /// The CTA's tile and threads (the schedule); 0: the defaults below.
  int64_t tileRows = 0, tileCols = 0, threadCount = 0;

  /// max(b_out, 32) rows by about 16384 / rows columns, a multiple of g_out
  /// (the reference's tiles, quant.md 4.9, hold 8192 elements; twice as many
  /// halve the per-tile work per element: the scale reduction with its
  /// barrier, the violation flag, the addressing).
  int64_t tileM() const { return tileRows ? tileRows : std::max<int64_t>(outBlockM, 32); }
  int64_t tileK() const {
    return tileCols ? tileCols : outBlockK * std::max<int64_t>(1, 16384 / tileM() / outBlockK);
  }
  /// 64 elements per thread, at most 512 threads.
  int64_t threads() const { return threadCount ? threadCount : std::min<int64_t>(512, tileM() * tileK() / 64); }
  std::string key() const;
};

/// The kernel. Besides out and out_sf it writes one f32 per tile into
/// `violations` (ceil(M / tileM), ceil(K / tileK)): 1 where an input block of
/// the tile has an exponent more than 11 below its output block's maximum, or
/// a scale that is not a power of two or 0 (the values cannot be re-blocked
/// exactly), else 0. Block heights are
/// powers of two (so output blocks tile the 32-row minimum evenly).
dsl::BuiltKernel buildPerBlockCastLossless(mlir::MLIRContext &ctx, const PerBlockLosslessConfig &config);

/// The lossless kernel's schedule: its tile and threads.
const OperatorSchedule<PerBlockLosslessConfig> &perBlockLosslessSchedule();

/// C++ reference. x is (M, K / 2) packed e2m1 bytes; sfIn(p, q) at
/// sfIn[p * in0 + q * in1] (powers of two or zero); out (M, K) e4m3 codes;
/// sfOut(p, q) at sfOut[p * out0 + q * out1]. Returns false when an input
/// block with a non-zero scale lies more than 11 exponents below its output
/// block's maximum (out and sfOut are then incomplete). Input blocks with a
/// zero scale (all values zero) are exempt and give zeros.
bool perBlockCastLosslessReference(const uint8_t *x, int64_t m, int64_t k, const float *sfIn, int64_t in0,
                                   int64_t in1, int64_t bIn, int64_t gIn, int64_t bOut, int64_t gOut, uint8_t *out,
                                   float *sfOut, int64_t out0, int64_t out1);

} // namespace tk::kernels::quant
