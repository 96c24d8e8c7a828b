//===- benchmark.h - `tk bench`: every shipped operator, timed on a GPU ---===//
#pragma once

#include <string>

namespace tk::bench {

struct BenchOptions {
  std::string jsonPath; ///< where to write the JSON report ("" = none)
  bool full = false;    ///< the spec's whole benchmark grid instead of a representative subset
  bool headline = false; ///< only the headline shapes (for ablation runs: TK_ABLATE)
  /// Only the operators named here, comma-separated ("" = all), e.g. for a
  /// profiler run or a tile sweep (TK_PER_CHANNEL_TILE).
  std::string only;
  /// Only the rows whose "shape variant" text (as printed) contains this
  /// ("" = all), e.g. one row for a profiler: --only per_token_cast
  /// --match e5m6.
  std::string match;
  /// The peers' baseline measurements printed beside tk's rows ("" = the
  /// default search of loadBaselines, bench/baselines.h).
  std::string baselinesPath;
};

/// Runs the copy ceiling and every operator's benchmark cases on the current
/// GPU, prints a table and writes JSON. Returns a process exit code.
int runBenchmark(const BenchOptions &options);

} // namespace tk::bench
