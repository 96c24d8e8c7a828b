//===- per_token_cast_check.h - run per_token_cast on a GPU, check, time --===//
#pragma once

#include "checks/gpu_session.h"
#include "tk/tk.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tk::checks {

struct PerTokenCastCase {
  int64_t m, k, group;
  tk_dtype in; ///< TK_BF16 or TK_F32
  uint32_t flags;
  int64_t xRowStride = 0; ///< 0: contiguous
  uint64_t seed = 1;
  tk_format fmt = TK_FORMAT_E4M3; ///< or TK_FORMAT_E2M1: out is (M, K / 2) i8
  /// > 0: each value of makeInput() is N(0, 1) times 2^-u, u uniform in
  /// [0, exponentSpread): rows span that many binades, so the small values
  /// of a row scale into the formats' subnormals (and below).
  int exponentSpread = 0;
};

struct CheckResult {
  tk_status status = TK_SUCCESS;
  std::string error;
  int64_t outMismatches = 0, sfMismatches = 0; ///< bit differences against the reference
  int64_t countMismatches = 0;                 ///< counters (SwiGLU's clamp counts) that differ
  double ms = 0;                               ///< median kernel time when timed
  double bytes = 0;                            ///< x + out + sf (spec's traffic formula)
  bool unchecked = false;                      ///< timed without comparing (a benchmark row after the first)
  uint64_t digest = 0; ///< checks that set it: a hash of every output byte, to compare two schedules' bits
  std::string describe() const;
  /// The call succeeded and every output, scale factor and counter matched.
  bool exact() const;
  /// "bit-exact", or describe() when not exact(); "" for a successful unchecked run.
  std::string verdict() const;
  /// Records an operator call's status (and tk_last_error() when it failed);
  /// true when it succeeded and the outputs are there to compare.
  bool called(tk_status s);
};

std::string describe(const PerTokenCastCase &c);

/// Packed UE8M0 words (quant.md 3.2): byte j % 4 of word (j / 4, i) holds the
/// exponent byte of scale factor (i, j), and word (q, i) is at q * wordStride + i.
uint8_t ue8m0Byte(const void *words, int64_t wordStride, int64_t i, int64_t j);
/// Such words for power-of-two scale factors sf(i, j) = sf[i * s0 + j * s1]
/// of `rows` x `groups` (at least one word).
std::vector<uint32_t> packUe8m0(const float *sf, int64_t s0, int64_t s1, int64_t rows, int64_t groups,
                                int64_t wordStride);

/// FNV-1a over `bytes` bytes, continuing from `hash` (CheckResult::digest).
uint64_t digestBytes(const void *data, size_t bytes, uint64_t hash = 14695981039346656037ull);

/// Random normal input for a case (rows of xRowStride elements, in c.in's
/// encoding); reusable across cases that differ only in group and flags.
std::vector<uint8_t> makeInput(const PerTokenCastCase &c);
/// makeInput(c), kept while consecutive cases ask for the same input (M, K,
/// dtype, stride, seed, spread): a grid that varies g and flags makes it once.
std::shared_ptr<const std::vector<uint8_t>> sharedInput(const PerTokenCastCase &c);

/// Runs the case through tk_per_token_cast on the GPU of `gpu` (or on the CPU
/// path when `gpu` is null) and compares out and out_sf bit for bit with the
/// C++ reference. With `time`: the median of timed GPU runs, or on the CPU the
/// wall time of one call after the checked one.
CheckResult checkPerTokenCast(GpuSession *gpu, tk_context ctx, const PerTokenCastCase &c,
                              const std::vector<uint8_t> &x, bool time);

/// per_token_cast_with_sf_only (against the reference's scale factors, in the
/// case's layout) and per_token_cast_with_precomputed_sf (given the reference's
/// row-major scale factors, against the reference cast with them), on the GPU
/// of `gpu`, or on the CPU path when `gpu` is null.
CheckResult checkPerTokenVariants(GpuSession *gpu, tk_context ctx, const PerTokenCastCase &c,
                                  const std::vector<uint8_t> &x);

/// The quantized input of a re-quantization (quant.md 4.2): codes with scale
/// factors of block (blockM, blockK), row- or column-major fp32, or powers of
/// two as packed UE8M0 words (column-major, word-column stride align(Mb_in, 4) + 4).
struct QuantizedInput {
  int64_t blockM = 128, blockK = 128;
  bool sfColMajor = false;
  bool sfPacked = false;
  tk_format fmt = TK_FORMAT_E4M3; ///< e4m3 codes (no NaN codes), or e2m1 codes two per byte
};

/// Re-quantization (quant.md 4.2): random codes with random fp32 scale factors
/// (powers of two with round_sf or packed) through tk_per_token_cast with x_sf;
/// out and out_sf compared bit for bit with the reference. GPU of `gpu`, or
/// the CPU path. With `time` (GPU only): the median of timed runs, bytes =
/// x + x_sf + out + out_sf.
CheckResult checkPerTokenRequant(GpuSession *gpu, tk_context ctx, const PerTokenCastCase &c, const QuantizedInput &in,
                                 bool time = false);

} // namespace tk::checks
