//===- cast_back.h - dequantization of e4m3 tensors (spec quant.md 4.10) --===//
#pragma once

#include "kernels/common/program.h"
#include "kernels/quant/formats.h"
#include "tk/compiler/Target/Targets.h"

#include <string>

namespace tk::kernels::quant {

/// Everything the generated code depends on; num_tokens stays dynamic.
struct CastBackConfig {
  int64_t hidden = 0;            ///< K
  int64_t blockM = 1;            ///< b: tokens per scale factor
  int64_t blockK = 128;          ///< g: channels per scale factor
  dsl::DType out = dsl::DType::BF16;
  int64_t xAlignBytes = 16;      ///< alignment of x's pointer and row stride
  int64_t outAlignBytes = 16;    ///< alignment of out's pointer and row stride
  /// Scale factors as packed UE8M0 words (quant.md 3.3): x_sf is the byte view
  /// (ceil(M / b), ceil(Kb / 4), 4) of the int32 words.
  bool packedSf = false;
  /// E2M1: x is (M, K / 2) i8, two codes per byte (quant.md 2.2). E5M6: x is
  /// (M, 3 K / 2) u8, 8 codes per 3 little-endian words (quant.md 2.4, 4.12).
  Format in = Format::E4M3;

  /// Rows per block: one, except for per-channel scales (g = 1, b > 1), where
  /// up to 32 rows of one scale block share one row of scale factors loaded
  /// once (one scale row per data row would read them from L2 b times).
  int64_t tileM() const;
  /// Columns per block: with one row, the whole row (rounded up to whole
  /// groups) up to 8192 elements, else the most whole groups that fit (or a
  /// power-of-two part of one group), so no tile straddles a group boundary;
  /// with several rows, 8192 elements in all.
  int64_t tileK() const;
  /// Channels that share one scale factor inside a tile.
  int64_t groupInTile() const { return std::min(blockK, tileK()); }
  int64_t threads() const { return tileM() * tileK() > 4096 ? 256 : 128; }
  std::string key() const;
};

/// `target` sizes the E5M6 input's runs (its access width).
dsl::BuiltKernel buildCastBack(mlir::MLIRContext &ctx, const CastBackConfig &config, const compiler::Target &target);

/// C++ reference: out[i, j] = round_out(decode(x[i, j]) * sf[(i / b) * sfStride0 + (j / g) * sfStride1]),
/// x (M, K) e4m3 codes contiguous (or (M, K / 2) packed e2m1 bytes, or (M, 3 K / 2)
/// packed e5m6 bytes), out (M, K)
/// contiguous: bf16 bits (uint16) or fp32.
void castBackReference(const uint8_t *x, int64_t m, int64_t k, int64_t b, int64_t g, const float *sf,
                       int64_t sfStride0, int64_t sfStride1, dsl::DType out, void *result, Format in = Format::E4M3);

} // namespace tk::kernels::quant
