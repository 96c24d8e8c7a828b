//===- bench_row.h - one row of `tk bench`: its table line and JSON --------===//
#pragma once

#include <string>

namespace tk::bench {

/// One timed case. A case that did not run (its call failed, e.g. a tuning
/// setting the kernel refuses) has no time: `us` 0, and its table line and
/// JSON show no rate rather than inf or NaN.
struct Row {
  std::string op, shape, variant;
  double us = 0, gbps = 0, frac = 0, bytes = 0;
  std::string check;
  /// Where the operator's schedule came from and what it set ("table
  /// rows=2,threads=256", "heuristic"); "" when it has none.
  std::string schedule;

  bool timed() const;
  /// Its check found a difference or its call failed (an empty check: not
  /// checked, which is not a failure).
  bool failed() const;
  /// Sets us, gbps and frac from a median time in ms (<= 0: not timed).
  void setTime(double ms, double ceilingGbps);
  /// The table line: op, shape, variant, µs, GB/s, fraction of the ceiling,
  /// check, and the schedule in brackets when it did not come from the heuristic.
  std::string tableLine() const;
  /// The JSON object (numbers that are not finite as null).
  std::string json() const;
};

/// The header line of tableLine()'s columns.
std::string tableHeader();
/// `s` as the inside of a JSON string: quotes, backslashes and control characters escaped.
std::string jsonEscape(const std::string &s);
/// `v` as a JSON number, or null when it is not finite.
std::string jsonNumber(double v);

} // namespace tk::bench
