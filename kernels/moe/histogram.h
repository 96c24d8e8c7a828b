//===- histogram.h - counts of ids and the frequencies made of them (moe.md 2.6-2.7) ===//
//
// group_count: counts[g] = #{(t, k) : ids[t, k] = g}, ids outside [0, G)
// (the -1 of empty slots, and anything else) not counted. Three stages in the
// call's stream order, as kernels: zero the counts; count, each block into a
// shared-memory histogram with shared integer atomics (tile.scatter {add}
// into a tile.alloc), then its non-zero bins into the counts with global
// integer atomics; aux_fi then turns its counts (scratch) into
// fi[e] = (float)(c_e E) / (float)(N Ka) in a third kernel. Schedule field
// `table`: two kernels instead (Rows: each block stores its histogram as its
// row of a table in scratch memory; RowSums: the column sums, as counts or
// as aux_fi's frequencies), no zeroing kernel and no global atomics. Integer
// sums do not depend on the order in which blocks add, so all are
// deterministic (the reference's aux_fi adds per-block float partials
// atomically, moe.md Q8).
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <string>

namespace tk::kernels::moe {

struct HistogramConfig {
  enum class Stage { Zero, Count, Frequency, Rows, RowSums };
  Stage stage = Stage::Count;
  /// The shared histogram's bins (Count, Rows): G rounded up to 128, at least 1024.
  int64_t bins = 1024;
  /// The table's columns (Rows, RowSums): G rounded up to 128, the bins that can count anything.
  int64_t width = 128;
  bool frequency = false; ///< RowSums: aux_fi's frequencies instead of the counts
  /// Schedule: ids (Count) or counts (Zero, Frequency) per CTA (0: 4096) and threads (0: 256); `table` = 1:
  /// count by Rows and RowSums (the Count config's schedule chooses; Rows takes its tile and threads).
  int64_t tile = 0, threads = 0, table = 0;
  /// Schedule: dependentLaunchField (-1: kDefaultDependentLaunch; every kernel of a call takes the counting kernel's).
  int64_t pdl = -1;
  int64_t tileElements() const { return tile ? tile : 4096; }
  int64_t numThreads() const { return threads ? threads : 256; }
  std::string key() const;
};

const OperatorSchedule<HistogramConfig> &histogramSchedule();

/// RowSums' (rows, columns) tile per loop step: a few steps down the table's B rows.
constexpr int64_t kRowSumRows = 32, kRowSumColumns = 128;

/// Zero: counts (G) i32. Count: ids (n) i64 flat, counts (G) i32, scalar G
/// (i64). Frequency: counts (E) i32, fi (E) f32, scalars E and N Ka (i64).
/// Rows: ids (n) i64 flat, table (B width) i32 flat (B = the grid's blocks),
/// scalar G. RowSums: table (B, width) i32; counts (1, G) i32, or fi (1, E)
/// f32 with the scalars E and N Ka.
dsl::BuiltKernel buildHistogram(mlir::MLIRContext &ctx, const HistogramConfig &config);

/// References: counts of ids in [0, groups) over `n` ids; fi from counts.
void groupCountReference(const int64_t *ids, int64_t n, int64_t groups, int32_t *counts);
void auxFiReference(const int32_t *counts, int64_t experts, int64_t tokens, int64_t auxTopk, float *fi);

} // namespace tk::kernels::moe
