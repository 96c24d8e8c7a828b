//===- bench_cases.cpp - the benchmark's cases: every operator table's rows ===//
//
// Timing: CUDA events around each call, 5 warm-ups, median of 50 runs (the
// check routines, checks/*_check.cpp). Bytes moved are the spec's minimum
// traffic (quant.md §0), computed by each check routine for its case.
//===----------------------------------------------------------------------===//
#include "bench/bench_cases.h"
#include "checks/operator_table.h"

#include <algorithm>

namespace tk::bench {

using namespace tk::checks;

namespace {

/// A checked and timed case's row. `described` is "<shape> <variant...>".
Row rowOf(const std::string &op, const std::string &described, const CheckResult &cr, double ceiling) {
  Row r;
  r.op = op;
  size_t space = described.find(' ');
  r.shape = described.substr(0, space);
  r.variant = space == std::string::npos ? "" : described.substr(space + 1);
  r.bytes = cr.bytes;
  r.setTime(cr.status == TK_SUCCESS ? cr.ms : 0, ceiling);
  r.check = cr.verdict();
  return r;
}

} // namespace

/// Calls `visit` with each table row the options choose, in table order.
template <typename Visit> static void forEachRow(const CaseOptions &options, Visit visit) {
  const RowSelection selection{options.full, options.headline, options.checkAll};
  for (const OperatorTable &table : operatorTables()) {
    // --only: the operators named (comma-separated).
    if (!selected(options.only, table.op))
      continue;
    for (const TableCase &row : table.bench(selection))
      // --match: only the cases whose "shape variant" text contains it.
      if (options.match.empty() || row.described.find(options.match) != std::string::npos)
        visit(table.op, row);
  }
}

std::vector<BenchCase> benchCases(GpuSession &gpu, const CaseOptions &options, double ceiling) {
  std::vector<BenchCase> cases;
  forEachRow(options, [&](const std::string &op, const TableCase &row) {
    cases.push_back({op, row.described, [&gpu, row, ceiling, op](tk_context ctx, bool time) {
                       GpuSession::Scope scope(gpu);
                       return rowOf(op, row.described, runCase(row, &gpu, ctx, time), ceiling);
                     }});
  });
  return cases;
}

std::vector<std::pair<std::string, std::string>> benchRowNames(const CaseOptions &options) {
  std::vector<std::pair<std::string, std::string>> names;
  forEachRow(options, [&](const std::string &op, const TableCase &row) { names.emplace_back(op, row.described); });
  return names;
}

std::string selectionProblem(const CaseOptions &options) {
  if (std::string error = checkOnly(options.only); !error.empty())
    return "--only: " + error;
  if (!options.match.empty() && benchRowNames(options).empty())
    return "--match: no row's shape and variant contain '" + options.match + "'" +
           (options.only.empty() ? "" : " among the operators of --only");
  return "";
}

} // namespace tk::bench
