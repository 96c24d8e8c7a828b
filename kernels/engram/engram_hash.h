//===- engram_hash.h - n-gram hash rows of the Engram tables (mhc_engram.md 4.1) ===//
//
// Per layer l and token t: the products p_i = id[t, i] * mult[l, i] (i64,
// wrapping), their XOR chain h_i = p_0 ^ ... ^ p_i, and for every n-gram
// order i >= 1 and table j the row floormod(h_i, vocab[l, i - 1, j]) +
// offsets[l, (i - 1) E + j], truncated to i32. Bit-exact: integer ops only.
// One CTA takes `rows` tokens: the N id columns as (rows, 1) tiles, then per
// layer a (rows, C) tile of rows stored to that layer's (T, C) slice.
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <cstdint>
#include <string>

namespace tk::kernels::engram {

struct EngramHashConfig {
  int64_t ngram = 0, layers = 0, tables = 0; ///< N, Lh, E: compile-time, as in the reference
  /// Schedule: tokens per CTA (0: 4096 / width, from 1 to 32), threads (0: 128).
  int64_t rows = 0, threads = 0;
  int64_t columns() const { return (ngram - 1) * tables; } ///< C
  int64_t width() const;                                   ///< C rounded up to a power of two
  int64_t rowsPerBlock() const;
  int64_t numThreads() const { return threads ? threads : 128; }
  std::string key() const;
};

const OperatorSchedule<EngramHashConfig> &engramHashSchedule();

/// Tensors: ids (T, N) i32, multipliers (Lh N) i64, vocab (Lh (N - 1) E)
/// i32, offsets (Lh C) i32, then Lh outputs (T, C) i32, one per layer.
dsl::BuiltKernel buildEngramHash(mlir::MLIRContext &ctx, const EngramHashConfig &config);

/// The math of 4.1 on host arrays (row-major), out (Lh, T, C). A
/// non-positive modulus gives -1 in its column (the kernel's choice; the
/// reference leaves it undefined).
void engramHashReference(const int32_t *ids, const int64_t *multipliers, const int32_t *vocab, const int32_t *offsets,
                         int64_t tokens, int64_t ngram, int64_t layers, int64_t tables, int32_t *out);

} // namespace tk::kernels::engram
