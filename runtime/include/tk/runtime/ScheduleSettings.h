//===- ScheduleSettings.h - what a context knows of operators' schedules ---===//
//
// TK_SCHEDULE (experiments: "per_channel_cast:rows=128,cols=64;transpose:
// threads=256", or "group_count:+pdl=0", the table's row with one field changed), read once when the context is made,
// and what each operator's calls ran with, for `tk bench` and `tk tune`. Which fields an operator's schedule has is the
// operator's (kernels/common/schedule.h); the context only holds the text.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/runtime/Status.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tk::runtime {

/// Where a call's schedule came from.
struct ScheduleChoice {
  /// "TK_SCHEDULE", "table", "table + TK_SCHEDULE" (OPERATOR:+FIELDS over the table's row), "heuristic" or
  /// "explicit" (a caller set it)
  std::string source;
  std::string problem;  ///< the config's key without its schedule (the tuning table's shape class)
  std::string schedule; ///< the fields set, "rows=128,threads=64" ("" for the heuristic's own choice)
  std::string target;   ///< the target it was chosen for ("sm_90a", "cpu")
  /// The fields the call ran with where its fit to the problem or the device changed them (a batch's tokens on
  /// the SMs, say), else "".
  std::string fitted;
  /// The schedules `tk tune` would time for this call (ScheduleLog::recordSpaces).
  std::vector<std::string> space;
};

class ScheduleSettings {
public:
  /// Parses `text` (TK_SCHEDULE's syntax): ';'-separated OPERATOR:FIELDS.
  static Status parse(const std::string &text, std::map<std::string, std::string> &out);
  /// TK_SCHEDULE as set now; a malformed value is an error every call returns.
  static ScheduleSettings fromEnvironment();
  /// `text` in TK_SCHEDULE's syntax (tk tune's candidates).
  static ScheduleSettings fromText(const std::string &text);

  /// The fields TK_SCHEDULE sets for `op` ("" for none), as written: a leading '+' asks for them on top of the
  /// schedule the call would take without TK_SCHEDULE (the tuning table's row), not instead of it.
  const std::string &overrideFor(const std::string &op) const;
  static bool extendsSchedule(const std::string &fields) { return !fields.empty() && fields[0] == '+'; }
  /// `fields` without the leading '+'.
  static std::string fieldsOf(const std::string &fields) { return extendsSchedule(fields) ? fields.substr(1) : fields; }
  const std::map<std::string, std::string> &overrides() const { return overrides_; }
  /// A malformed TK_SCHEDULE (ok otherwise).
  const Status &status() const { return status_; }
  /// Whether schedules come from the tuning table at all (tk bench and tk
  /// tune compare against the heuristic alone).
  bool useTable = true;

private:
  std::map<std::string, std::string> overrides_;
  Status status_ = Status::ok();
};

/// What each operator's last call in a context ran with.
class ScheduleLog {
public:
  /// Also record each call's search space (tk tune; off: calls stay cheap).
  bool recordSpaces = false;
  void record(const std::string &op, const ScheduleChoice &choice);
  /// The fields `op`'s last call ran with after its fit changed the recorded choice's.
  void recordFit(const std::string &op, const std::string &fields);
  /// Empty when `op` has not run.
  ScheduleChoice last(const std::string &op) const;
  /// Every operator's last choice.
  std::map<std::string, ScheduleChoice> all() const;
  void clear();

private:
  mutable std::mutex mutex_;
  std::map<std::string, ScheduleChoice> last_;
};

} // namespace tk::runtime
