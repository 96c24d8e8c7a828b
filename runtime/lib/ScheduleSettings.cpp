//===- ScheduleSettings.cpp -----------------------------------------------===//
#include "tk/runtime/ScheduleSettings.h"

#include <cstdlib>

namespace tk::runtime {

Status ScheduleSettings::parse(const std::string &text, std::map<std::string, std::string> &out) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(';', at);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(at, end - at);
    at = end + 1;
    if (item.empty())
      continue;
    size_t colon = item.find(':');
    // OPERATOR:+FIELDS changes those fields of the schedule the call would have run (the table's row).
    if (colon == std::string::npos || colon == 0 || fieldsOf(item.substr(colon + 1)).empty())
      return Status::invalid(
          "TK_SCHEDULE: '" + item +
          "' is not OPERATOR:FIELD=VALUE[,FIELD=VALUE...] (e.g. per_channel_cast:rows=128,threads=64) "
          "or OPERATOR:+FIELD=VALUE[,...] (those fields changed in the tuning table's schedule)");
    std::string op = item.substr(0, colon);
    if (!out.emplace(op, item.substr(colon + 1)).second)
      return Status::invalid("TK_SCHEDULE: '" + op + "' is set twice");
  }
  return Status::ok();
}

ScheduleSettings ScheduleSettings::fromEnvironment() {
  const char *text = std::getenv("TK_SCHEDULE");
  return fromText(text ? text : "");
}

ScheduleSettings ScheduleSettings::fromText(const std::string &text) {
  ScheduleSettings s;
  s.status_ = parse(text, s.overrides_);
  return s;
}

const std::string &ScheduleSettings::overrideFor(const std::string &op) const {
  static const std::string none;
  auto it = overrides_.find(op);
  return it == overrides_.end() ? none : it->second;
}

void ScheduleLog::record(const std::string &op, const ScheduleChoice &choice) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_[op] = choice;
}

void ScheduleLog::recordFit(const std::string &op, const std::string &fields) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_[op].fitted = fields;
}

ScheduleChoice ScheduleLog::last(const std::string &op) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = last_.find(op);
  return it == last_.end() ? ScheduleChoice{} : it->second;
}

} // namespace tk::runtime

namespace tk::runtime {

std::map<std::string, ScheduleChoice> ScheduleLog::all() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_;
}

void ScheduleLog::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  last_.clear();
}

} // namespace tk::runtime
