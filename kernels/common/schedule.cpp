//===- schedule.cpp - finding operator schedules, the tuning table --------===//
#include "kernels/common/operator_schedule.h"

#include <map>
#include <sstream>
#include <tuple>

namespace tk::kernels {

/// kernels/tuning/table.tsv, embedded at build time (embed_table.cmake).
extern const char *const kTuningTable;

namespace {

using TableKey = std::tuple<std::string, std::string, std::string>; // operator, target, shape class

struct TuningTable {
  std::map<TableKey, std::string> rows;
  std::map<TableKey, std::string> notes; ///< each row's comment lines

  std::string problem; ///< a malformed row, "" when all parse
};

TuningTable parseTable(const std::string &text, const std::string &source) {
  TuningTable out;
  std::istringstream in(text);
  std::string line, note;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) {
      note.clear();
      continue;
    }
    if (line[0] == '#') {
      note += line + "\n";
      continue;
    }
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, '\t');)
      cells.push_back(cell);
    if (cells.size() != 4 || cells[3].empty()) {
      if (out.problem.empty())
        out.problem = source + " line " + std::to_string(n) +
                      ": expected operator, target, shape class and schedule separated by tabs";
      continue;
    }
    out.rows[{cells[0], cells[1], cells[2]}] = cells[3];
    out.notes[{cells[0], cells[1], cells[2]}] = note;
    note.clear();
  }
  return out;
}

TuningTable &table() {
  static TuningTable t = parseTable(kTuningTable, "kernels/tuning/table.tsv");
  return t;
}

} // namespace

const ScheduledOperator *findScheduledOperator(const std::string &name) {
  for (const ScheduledOperator *op : scheduledOperators())
    if (op->name() == name)
      return op;
  return nullptr;
}

std::string scheduledAsHint(const std::string &name) {
  const std::string entry = "tk_" + name;
  for (const ScheduledOperator *op : scheduledOperators()) {
    std::stringstream list(op->entryPoints());
    for (std::string e; std::getline(list, e, ',');)
      if (e.erase(0, e.find_first_not_of(' ')) == entry)
        return "; " + entry + "'s kernels are scheduled as '" + op->name() + "'";
  }
  return "";
}

std::vector<TableRow> tuningTableRows() {
  std::vector<TableRow> out;
  for (const auto &[key, schedule] : table().rows)
    out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), schedule, table().notes[key]});
  return out;
}

std::string replaceTuningTable(const std::string &text, const std::string &source) {
  TuningTable t = parseTable(text, source);
  if (!t.problem.empty())
    return t.problem;
  table() = std::move(t);
  return "";
}

const std::string *tunedSchedule(const std::string &op, const std::string &target, const std::string &problem) {
  const TuningTable &t = table();
  auto it = t.rows.find({op, target, problem});
  return it == t.rows.end() ? nullptr : &it->second;
}

std::string tuningTableProblem() { return table().problem; }

runtime::Status checkScheduleOverrides(const runtime::ScheduleSettings &settings) {
  if (!settings.status().isOk())
    return settings.status();
  for (const auto &[op, fields] : settings.overrides()) {
    const ScheduledOperator *known = findScheduledOperator(op);
    if (!known) {
      std::string names;
      for (const ScheduledOperator *o : scheduledOperators())
        names += (names.empty() ? "" : ", ") + o->name();
      return runtime::Status::invalid("TK_SCHEDULE: '" + op + "' is no operator's schedule" + scheduledAsHint(op) +
                                      " (" + names + ")");
    }
    if (std::string error = known->checkFields(runtime::ScheduleSettings::fieldsOf(fields)); !error.empty())
      return runtime::Status::invalid("TK_SCHEDULE: " + op + ": " + error);
  }
  return runtime::Status::ok();
}

std::vector<std::string> everyCombination(const std::vector<std::pair<std::string, std::vector<int64_t>>> &fields) {
  std::vector<std::string> out = {""};
  for (const auto &[name, values] : fields) {
    std::vector<std::string> longer;
    for (const std::string &prefix : out)
      for (int64_t v : values)
        longer.push_back(prefix + (prefix.empty() ? "" : ",") + name + "=" + std::to_string(v));
    out = std::move(longer);
  }
  return out;
}

} // namespace tk::kernels
