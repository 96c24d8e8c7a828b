//===- bench_cases.h - the cases `tk bench` times and `tk tune` searches ---===//
#pragma once

#include "bench/bench_row.h"
#include "checks/gpu_session.h"
#include "checks/operator_table.h"
#include "tk/tk.h"

#include <functional>
#include <string>
#include <vector>

namespace tk::bench {

using checks::GpuSession;

/// Which cases: the options `tk bench` and `tk tune` share.
struct CaseOptions {
  bool full = false;     ///< the spec's whole benchmark grid instead of a representative subset
  bool headline = false; ///< only the headline shapes (for ablation runs: TK_ABLATE)
  /// Only the operators named here, comma-separated ("" = all), e.g. for a
  /// profiler run or a schedule sweep (TK_SCHEDULE).
  std::string only;
  /// Only the cases whose "shape variant" text (as printed) contains this
  /// ("" = all), e.g. one row for a profiler: --only per_token_cast
  /// --match e5m6.
  std::string match;
  /// Check every case's results, not only the first of a family whose
  /// other cases are timed unchecked (tk tune checks every schedule it times).
  bool checkAll = false;
};

/// One benchmark case: run in a context, it checks and times the operator
/// and returns its row (a failed call: a row with no time, its check says why).
struct BenchCase {
  std::string op;        ///< the operator, as --only names it
  std::string described; ///< "<shape> <variant>", as --match sees it
  std::function<Row(tk_context, bool time)> call;
  /// Checks the case in `ctx` and, with `time`, times it (without: one call, as `tk tune` needs to learn which
  /// schedules the call chose and their search spaces).
  Row run(tk_context ctx, bool time = true) const { return call(ctx, time); }
};

/// Every operator --only accepts, in table order.
using checks::checkOnly; ///< "" when every name in --only is an operator, else the message
using checks::selected;  ///< whether --only selects an operator
/// The cases the options choose, in table order. Their runs use `gpu` and
/// rate bytes against `ceilingGbps`.
std::vector<BenchCase> benchCases(GpuSession &gpu, const CaseOptions &options, double ceilingGbps);
/// (operator, "<shape> <variant>") of each case the options choose, in table
/// order, without a GPU: `tk bench --list`, to plan a device call.
std::vector<std::pair<std::string, std::string>> benchRowNames(const CaseOptions &options);
/// "" when the options select at least one row, else why not ("--only: ..."
/// for a name that is no operator's, "--match: ..." when no row matches),
/// known before any GPU work.
std::string selectionProblem(const CaseOptions &options);

} // namespace tk::bench
