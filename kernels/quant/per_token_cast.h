//===- per_token_cast.h - 1 x g group quantization (spec quant.md 4.1) ----===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"
#include "kernels/quant/formats.h"

#include <string>

namespace tk::kernels::quant {

/// Which of the per-token operators (quant.md 4.1, 4.3, 4.4) the kernel is.
enum class PerTokenMode { Cast, SfOnly, PrecomputedSf };

/// Everything the generated code depends on; num_tokens stays dynamic.
struct PerTokenCastConfig {
  int64_t hidden = 0;             ///< K
  int64_t group = 128;            ///< channels per scale factor (16, 32, 64, 128 or K)
  /// BF16, F32, or a quantized input (quant.md 4.2): F8E4M3 codes, or I8
  /// bytes of two E2M1 codes each (x is (M, K / 2), low nibble first).
  dsl::DType in = dsl::DType::BF16;
  bool roundSf = false;
  int64_t xAlignBytes = 16;       ///< alignment of x's pointer and row stride in bytes
  /// x's rows are contiguous (row stride K elements, or K / 2 bytes of FP4
  /// codes): the stride is a constant of the kernel instead of an argument,
  /// which saves the per-row 64-bit address multiplications (per_token_cast's
  /// hot path: 223 -> 197 SASS instructions). The C API picks it when it holds.
  bool xContiguous = false;
  int64_t outAlignBytes = 16;     ///< alignment of out's pointer and row stride in bytes
  PerTokenMode mode = PerTokenMode::Cast;
  /// Block of the input's scale factors (b_in, g_in) of a quantized input;
  /// supported when b_in is 1 or a multiple of tileM() and g_in divides tileK().
  int64_t inBlockM = 0, inBlockK = 0;
  bool inPackedSf = false; ///< the input's scale factors are packed UE8M0 words (byte view)
  /// Output format: E4M3 (out (M, K) e4m3), E2M1 (out (M, K / 2) i8, two
  /// codes per byte, quant.md 2.2) or E5M6 (out (M, 3 K / 2) bytes, 8 codes
  /// per 3 words, quant.md 2.4; one group per row).
  Format out = Format::E4M3;
  /// Scale factors as packed UE8M0 bytes (quant.md 3.2): out_sf is the
  /// (M, ceil(Kb / 4), 4) byte view of the int32 (M, Kq) column-major words.
  bool packedSf = false;

  /// Schedule experiments (0 = off; bf16 and f32 inputs only). A persistent
  /// grid of at most `persistentBlocksPerSm` blocks per SM, each looping over
  /// tiles; or a tile.pipeline: each CTA walks `tilesPerBlock` row tiles, their
  /// inputs copied into shared memory `pipelineStages - 1` tiles ahead.
  int64_t persistentBlocksPerSm = 0;
  int64_t pipelineStages = 0, tilesPerBlock = 1;
  /// Values per thread along a row where the output is E5M6 (a multiple of
  /// 8): runs of 16 codes make each thread store 24 contiguous bytes, three
  /// 8-byte words, where runs of 8 stored three 4-byte ones, each warp-wide
  /// store touching a third of the sectors it writes (the bf16 e5m6 cast on
  /// the H200: 240.8 -> 212.5 us, 79.9% -> 90.6% of the copy ceiling; runs
  /// of 32: 323.5 us).
  int64_t e5m6Run = 16;
  /// Rows per block instead of tileM()'s choice (0 = that choice; bf16 and
  /// f32 inputs only; the schedule's rows).
  int64_t tileRows = 0;

  /// Columns per block: the whole row when one group spans it, else at least
  /// one group (and one input scale block) and a divisor of 4096 elements.
  int64_t tileK() const;
  /// Rows per block: 2048 elements per block for bf16 (4 KB), 4096 for the
  /// other inputs, where that divides evenly, else 1; a bf16 input's e2m1
  /// output up to 8192 elements in at most 8 rows; and at least 2 rows of
  /// bf16 up to 8192 columns. (bf16 at 32768x7168,
  /// g=128 on the H200: 2 rows of 1024 ran at 89.9% of the copy ceiling,
  /// against 88.0-88.8% for 4 rows and 84.9% for 8.)
  /// With a quantized input, a power of two dividing the input's scale block
  /// rows, so every tile lies in one row of input scale blocks.
  int64_t tileM() const;
  int64_t groups() const { return ceilDiv(hidden, group); }
  bool quantizedInput() const { return in == dsl::DType::F8E4M3 || in == dsl::DType::I8; }
  std::string key() const;
  std::string kernelName() const;
};

dsl::BuiltKernel buildPerTokenCast(mlir::MLIRContext &ctx, const PerTokenCastConfig &config);

/// The per-token kernels' schedule (rows per block, a persistent grid or a
/// pipeline, E5M6 runs), for bf16 and f32 inputs.
const OperatorSchedule<PerTokenCastConfig> &perTokenCastSchedule();

/// C++ reference of the same operator. x is (M, K) with row stride `xRowStride`
/// (elements; bf16 as raw uint16 bits or fp32); out is (M, K) contiguous e4m3
/// codes, or (M, K / 2) packed E2M1 bytes for Format::E2M1; sf(i, k) is
/// stored at sf[i * sfStride0 + k * sfStride1].
void perTokenCastReference(const void *x, dsl::DType in, int64_t m, int64_t k, int64_t xRowStride, int64_t group,
                           bool roundSf, uint8_t *out, float *sf, int64_t sfStride0, int64_t sfStride1,
                           Format fmt = Format::E4M3);

/// Reference of the re-quantization (quant.md 4.2): x is (M, K) e4m3 codes
/// (or, with inFmt E2M1, (M, K / 2) bytes of two codes each) with row stride
/// `xRowStride` bytes, dequantized as fl(decode(x) * sfIn[(i / bIn) *
/// sfInStride0 + (j / gIn) * sfInStride1]), then cast as perTokenCastReference.
void perTokenRequantReference(const uint8_t *x, int64_t m, int64_t k, int64_t xRowStride, const float *sfIn,
                              int64_t sfInStride0, int64_t sfInStride1, int64_t bIn, int64_t gIn, int64_t group,
                              bool roundSf, uint8_t *out, float *sf, int64_t sfStride0, int64_t sfStride1,
                              Format fmt = Format::E4M3, Format inFmt = Format::E4M3);

/// Reference of per_token_cast_with_precomputed_sf: out = e4m3(x * fl(1 / sf)),
/// sf(i, k) at sf[i * sfStride0 + k] (row-major).
void perTokenCastWithSfReference(const void *x, dsl::DType in, int64_t m, int64_t k, int64_t xRowStride,
                                 int64_t group, const float *sf, int64_t sfStride0, uint8_t *out,
                                 Format fmt = Format::E4M3);

} // namespace tk::kernels::quant
