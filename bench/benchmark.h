//===- benchmark.h - `tk bench`: every shipped operator, timed on a GPU ---===//
#pragma once

#include "bench/bench_cases.h"

#include <string>

namespace tk::bench {

struct BenchOptions : CaseOptions {
  std::string jsonPath; ///< where to write the JSON report ("" = none)
  /// The peers' baseline measurements printed beside tk's rows ("" = the
  /// default search of loadBaselines, bench/baselines.h).
  std::string baselinesPath;
  /// Schedules from the tuning table (false: the heuristic's, to compare).
  bool useTable = true;
};

/// Runs the copy ceiling and every operator's benchmark cases on the current
/// GPU, prints a table and writes JSON. Returns a process exit code.
int runBenchmark(const BenchOptions &options);

/// "table rows=128,threads=64" for each operator schedule `ctx` ran since
/// its log was last cleared, "; "-separated ("" when none).
std::string schedulesRun(tk_context ctx);

} // namespace tk::bench
