//===- per_channel_cast.h - b x 1 (per-channel) quantization --------------===//
//
// per_channel_cast (spec quant.md 4.13), per_channel_cast_fused (4.14, without
// the row gather), per_channel_cast_and_transpose (4.15) and
// swiglu_forward_and_per_channel_cast_and_transpose (4.17): one scale per
// column and block of b rows; the e4m3 data is written as x's layout or
// transposed (K-major).
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"
#include "kernels/quant/formats.h"
#include "kernels/quant/swiglu.h"

#include <algorithm>
#include <optional>
#include <string>

namespace tk::kernels::quant {

struct PerChannelCastConfig {
  int64_t hidden = 0;      ///< K (a multiple of 64)
  int64_t blockM = 128;    ///< b: tokens per scale factor (32 or 128)
  /// BF16, F32, or F8E4M3: a per-token quantized input (quant.md 4.14) whose
  /// values are fl(decode(x) * xs[i, j / 128]), xs fp32 (M, K / 128).
  dsl::DType in = dsl::DType::BF16;
  bool roundSf = false;
  bool transposed = false; ///< out is (K, M): per_channel_cast_and_transpose
  /// x is bf16 (M, 2K) holding (gate | linear) halves; the values cast are
  /// bf16(swiglu(l, r)) (quant.md 4.17), with an optional clamp.
  bool swiglu = false;
  std::optional<float> clamp;
  /// per_channel_cast_fused's row gather (quant.md 4.14): output row p is x's
  /// row pos_to_token[p] (zero for -1); out and out_sf have N_out rows.
  bool rowGather = false;
  int64_t xAlignBytes = 16;
  int64_t outAlignBytes = 16;

  /// The CTA's tile and threads; 0 = the default. A tile has a multiple of b
  /// rows and of 16 columns.
  int64_t tileRows = 0, tileCols = 0, threads = 0;
  /// Each thread's widest global access in bytes (KernelBuilder::
  /// maxAccessBytes: 4, 8 or 16); 0 = the default, maxAccess().
  int64_t accessBytes = 0;
  /// 8 bytes for an e4m3 input and for the row gather, whose 128-row column
  /// reductions then cross 4 lanes instead of 8 (a sweep on the H200,
  /// docs/performance.md), and for oneStagedTile(); 0 (the target's widest)
  /// for the rest.
  int64_t maxAccess() const {
    return accessBytes ? accessBytes : in == dsl::DType::F8E4M3 || rowGather || oneStagedTile() ? 8 : 0;
  }
  /// Reads the input again after the scales are known instead of keeping
  /// every value in registers across the block reduction (from L1 or the
  /// pipeline's shared memory): fewer registers, more CTAs per SM. -1: the
  /// default (on for the row gather: 128 -> 72 registers; for a
  /// quantized input; and for oneStagedTile(), which reads its staged tile
  /// again), 0 off, 1 on. Never for the transposed forms (the transpose
  /// wants the second read laid out otherwise than the reduction's).
  int64_t reload = -1;
  bool reloads() const {
    return !transposed && (reload >= 0 ? reload == 1 : rowGather || in == dsl::DType::F8E4M3 || oneStagedTile());
  }

  /// Default: 128 tokens x 64 channels per CTA of 128 threads, 64 elements
  /// per thread. SwiGLU (two inputs and an exponential per element): tiles
  /// of 32 channels; without a transpose 64 threads, and at b = 32 tiles of
  /// one block of 32 rows by 128 channels with 128 threads (32 elements per
  /// thread). The transposed b = 32 form: tiles of 64 x 64. The plain
  /// transposed forms: 64 threads, 8 rows per thread (transposeRowsPerThread()).
  /// Fewer warps per CTA mean shorter cross-warp reductions and more CTAs
  /// per SM: a sweep of the schedule's rows, cols and threads took the plain
  /// cast from 50.8% of the copy ceiling to 70.7% and the transposed SwiGLU
  /// form from 15.0% to 47.9%; fewer elements per thread, fewer registers:
  /// later sweeps (docs/performance.md) took SwiGLU b = 32 from 43.8% to
  /// 71.7% and the transposed b = 32 form from 70.5% to 78.0%.
  ///
  /// Software pipelining (tile.pipeline): each CTA walks tiles() row tiles
  /// down its column strip, their inputs copied into shared memory
  /// stages() - 1 tiles ahead (cp.async, stages() buffers); stages() 0: one
  /// tile per CTA, loaded into registers. -1 / 0: the defaults below.
  int64_t pipelineStages = -1, tilesPerBlock = 0;
  /// Bytes of shared memory one stage's buffers take: the input tile(s)
  /// and, for a quantized input, its fp32 multipliers (one per row and 128
  /// channels).
  int64_t stageBytes() const {
    return (swiglu ? 2 : 1) * tileM() * tileK() * dsl::byteSize(in) +
           (in == dsl::DType::F8E4M3 ? tileM() * multiplierColumns() * 4 : 0);
  }
  /// A quantized input's multipliers per row of a tile: one per 128 channels
  /// (a narrower tile lies inside one 128-channel group).
  int64_t multiplierColumns() const { return std::max<int64_t>(1, tileK() / 128); }
  /// Default (from sweeps of stages and tiles on the H200): 1 stage of
  /// 1 tile for the plain bf16 and e4m3 casts (oneStagedTile()); 2 stages of
  /// 8 tiles for SwiGLU without a transpose (with 64-thread CTAs: 33.0% ->
  /// 39.6%) and for the transposed SwiGLU form at b = 128 (once its stores
  /// were 16 bytes wide: 48.5% -> 60.3%; one tile per CTA, 96 registers
  /// instead of 150, was slower, 472.0 -> 507.0 us), which takes 16 tiles
  /// since it holds 118 registers (three passes alternating: 450.8 -> 448.0
  /// us, with clamp 456.1 -> 447.8; 3x8 and 2x4 no better); none for the
  /// plain transposed cast (196.1 -> 189.5 us, 88.5% of the copy ceiling,
  /// without the pipeline that an earlier form of it ran faster with), the
  /// transposed b = 32 form (no gain), the row gather (data-dependent rows)
  /// and the others. Never more stages than kPipelineSharedBytes hold.
  int64_t stages() const;
  int64_t tiles() const {
    return tilesPerBlock ? tilesPerBlock
           : stages() == 0 ? 1
           : oneStagedTile()                ? 1
           : swiglu && transposedB128()     ? 16
           : swiglu || transposedB128()     ? 8
                                            : 4;
  }
  /// The pipelined transposed SwiGLU form reads the thread index again in
  /// each iteration (KernelBuilder::rereadThreadIndexInLoops): at
  /// b = 128 149 -> 118 registers (4 CTAs per SM instead of 3), 456.5 ->
  /// 431.3 µs, with clamp 469.5 -> 439.3. Not the non-transposed b = 32
  /// form: 136 -> 123 registers, but 365.5 -> 380.5 µs.
  bool rereadsThreadIndex() const { return rereadIndex >= 0 ? rereadIndex == 1 : swiglu && transposed; }
  /// -1: the default above; 0 off, 1 on.
  int64_t rereadIndex = -1;
  /// The transposed forms: consecutive rows per thread of the tile
  /// transposed (KernelBuilder::transposeRowsPerThread: 4, 8 or 16); 0: the
  /// default, transposeRowsPerThread().
  int64_t transposeRows = 0;
  /// 8 for the plain transposed cast, on tiles of 64 threads: at b = 32
  /// (64 x 64 tiles) a 32-row column group then lies inside one warp (4
  /// lanes of 8 rows), so the column maximum needs no exchange through
  /// shared memory and no barrier (210.2 -> 192.2 µs, 81.8% -> 90.0% of the
  /// copy ceiling; Nsight Compute had the old kernel at 94% of its L1
  /// throughput); at b = 128 (128 x 64 tiles, 167 registers) 187.8 ->
  /// 185.9 µs, and 185.4 -> 183.8 with e4m3 transposes swizzled. 4 for the
  /// SwiGLU form.
  int64_t transposeRowsPerThread() const { return transposeRows ? transposeRows : plainTransposed() ? 8 : 4; }
  bool plainTransposed() const { return transposed && !swiglu; }
  bool transposedB128() const { return transposed && blockM == 128 && in == dsl::DType::BF16; }

  int64_t tileM() const {
    return tileRows ? tileRows : swigluRowsOfOneBlock() ? 32 : transposed && blockM == 32 ? 64 : 128;
  }
  int64_t tileK() const {
    return tileCols                                                           ? tileCols
           : oneStagedTile() && in == dsl::DType::F8E4M3 && hidden % 256 == 0 ? 256
           : swigluRowsOfOneBlock() || oneStagedTile()                        ? 128
           : swiglu                                                           ? 32
                                                                              : 64;
  }
  int64_t numThreads() const {
    return threads                                  ? threads
           : oneStagedTile()                          ? 256
           : plainTransposed()                        ? 64
           : swiglu && !transposed && !swigluRowsOfOneBlock() ? 64
                                                              : 128;
  }
  /// per_channel_cast of a bf16 or quantized (e4m3) input with no SwiGLU,
  /// gather or transpose: tiles of 128 x 128 with 256 threads, 8-byte
  /// accesses, one tile per CTA staged in shared memory (with an e4m3 input's
  /// multipliers) and read again for the cast. bf16: 207.5 -> 193.6 µs,
  /// 80.7% -> 86.9% of the copy ceiling, 39 registers, not 128.
  /// e4m3: once the multipliers were copied with the codes, 189.7 µs (2
  /// stages of 8 tiles of 128 x 64) -> 148.8 µs with 128 x 128 tiles,
  /// and 137.6 µs, 82.4%, with 128 x 256 (256 bytes of codes per
  /// row), the width taken when K is a multiple of 256.
  bool oneStagedTile() const {
    return !swiglu && !transposed && !rowGather && (in == dsl::DType::BF16 || in == dsl::DType::F8E4M3);
  }
  /// SwiGLU without a transpose at b = 32: each tile one block of rows.
  bool swigluRowsOfOneBlock() const { return swiglu && !transposed && blockM == 32; }
  /// The problem's values and the schedule's fields that are set.
  /// The kernel's name: which of the four operators it serves.
  std::string kernelName() const;
  std::string key() const;
};

dsl::BuiltKernel buildPerChannelCast(mlir::MLIRContext &ctx, const PerChannelCastConfig &config);

/// The schedule of the per-channel kernels (tile, threads, access width,
/// reloading, the thread index in loops, transposed rows, pipeline).
const OperatorSchedule<PerChannelCastConfig> &perChannelCastSchedule();

/// C++ reference. x (M, K) contiguous (bf16 bits, fp32, or e4m3 codes with
/// their dequantization multipliers xs (M, K / 128)); out (M, K), or (K, M)
/// when `transposed`, e4m3 codes; sf (M / b, K) row-major.
void perChannelCastReference(const void *x, dsl::DType in, int64_t m, int64_t k, int64_t b, bool roundSf,
                             bool transposed, uint8_t *out, float *sf, const float *xs = nullptr);

/// quant.md 4.14 with the row gather: the rows of x (and xs) that posToToken
/// (nOut entries, -1 for a zero row) names, then perChannelCastReference over
/// nOut rows (a partial last block of b rows counts only its rows).
void perChannelCastGatherReference(const void *x, dsl::DType in, int64_t k, const int32_t *posToToken,
                                   int64_t nOut, int64_t b, bool roundSf, uint8_t *out, float *sf,
                                   const float *xs = nullptr);

/// The bf16 activation of quant.md 4.17 for rows [rowBegin, rowEnd) of x
/// (bf16 (M, 2K) contiguous) into act (M, K).
void swigluActivationReference(const uint16_t *x, int64_t k, std::optional<float> clamp, const ExpFunction &expf,
                               int64_t rowBegin, int64_t rowEnd, uint16_t *act);

/// C++ reference of quant.md 4.17: x bf16 (M, 2K) contiguous; out (K, M) or,
/// without `transposed`, (M, K) e4m3 codes; sf (M / b, K) row-major.
void swigluPerChannelCastReference(const uint16_t *x, int64_t m, int64_t k, int64_t b, bool roundSf,
                                   bool transposed, std::optional<float> clamp, const ExpFunction &expf,
                                   uint8_t *out, float *sf);

} // namespace tk::kernels::quant
