//===- tune.h - `tk tune`: search each operator's declared schedules -------===//
//
// For each benchmark case: the heuristic's schedule is timed, then every
// schedule in the operator's declared search space (OperatorSchedule's
// space, around the heuristic's choice; or the ones --candidates lists),
// each checked against the reference as it runs. Cases that share a table
// row (operator, target, shape class) pool their ratios; a schedule that is
// faster on all of them by more than `minGain` (geometric mean) is timed
// again against the heuristic, and kept when it still wins. The result is the tuning table (kernels/tuning/
// table.tsv's format) with those rows replaced.
//===----------------------------------------------------------------------===//
#pragma once

#include "bench/bench_cases.h"

#include <map>
#include <string>
#include <vector>

namespace tk::bench {

struct TuneOptions : CaseOptions {
  std::string outPath;  ///< where to write the table ("" = print it)
  double seconds = 0;   ///< stop starting cases after this long (0 = no limit)
  double minGain = 0.02; ///< a schedule must be this much faster (0.02: 2%; less is within the noise of short rows)
  std::string command;  ///< the command line, for the table's header
  /// Operator -> the schedules to time (FIELDS each) instead of its declared
  /// space; when set, operators not named here are timed but not searched.
  std::map<std::string, std::vector<std::string>> candidates;
};

/// Parses --candidates' "OP:FIELDS[;OP:FIELDS...]" into `out`: "" when every
/// entry names an operator's schedule and fields that parse, else the problem.
std::string parseCandidates(const std::string &text, std::map<std::string, std::vector<std::string>> &out);

int runTune(const TuneOptions &options);

/// Every operator's schedule: its name, entry points and fields (no GPU).
std::string describeSchedules();

} // namespace tk::bench
