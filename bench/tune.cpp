//===- tune.cpp - `tk tune` -----------------------------------------------===//
#include "bench/tune.h"
#include "bench/driver_version.h"
#include "kernels/common/operator_schedule.h"
#include "tk/compiler/Version.h"
#include "tk/runtime/Context.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace tk::bench {

using namespace tk::checks;

namespace {

using Clock = std::chrono::steady_clock;

struct TableKey {
  std::string op, target, problem;
  bool operator<(const TableKey &o) const {
    return std::tie(op, target, problem) < std::tie(o.op, o.target, o.problem);
  }
};

/// What the search found for one table row.
struct Search {
  std::vector<size_t> cases;                            ///< indices of the cases that share it
  std::map<std::string, std::vector<double>> ratios;    ///< schedule -> its time / the heuristic's, per case
  std::map<std::string, std::string> refused;           ///< schedule -> why it did not run or check
  bool cut = false; ///< a case stopped part way (--seconds): finding no winner then says nothing of the table's row
};

double geomean(const std::vector<double> &v) {
  double s = 0;
  for (double x : v)
    s += std::log(x);
  return v.empty() ? 1 : std::exp(s / v.size());
}

/// Runs `c` in `ctx` with TK_SCHEDULE's `schedule` ("" = the heuristic's),
/// the table aside; the row and what `op`'s calls ran with.
Row runWith(tk_context ctx, const BenchCase &c, const std::string &schedule, bool time = true) {
  ctx->schedules = runtime::ScheduleSettings::fromText(schedule);
  ctx->schedules.useTable = false;
  ctx->scheduleLog.clear();
  return c.run(ctx, time);
}

std::string today() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

} // namespace

std::string parseCandidates(const std::string &text, std::map<std::string, std::vector<std::string>> &out) {
  std::stringstream entries(text);
  std::string entry;
  while (std::getline(entries, entry, ';')) {
    const size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size())
      return "'" + entry + "' is not OP:FIELDS (e.g. reduce_fused:rolled=1,cols=4096)";
    const std::string op = entry.substr(0, colon), fields = entry.substr(colon + 1);
    if (runtime::ScheduleSettings::extendsSchedule(fields))
      return "'" + entry + "': tk tune times each candidate against the heuristic with the tuning table aside, so " +
             "a candidate names all of its fields (no '+')";
    const kernels::ScheduledOperator *known = kernels::findScheduledOperator(op);
    if (!known)
      return "'" + op + "' is no operator's schedule" + kernels::scheduledAsHint(op) + " (tk tune --list names them)";
    if (std::string error = known->checkFields(fields); !error.empty())
      return op + ": " + error;
    out[op].push_back(fields);
  }
  return out.empty() ? "names no schedule" : "";
}

std::string describeSchedules() {
  std::string out;
  for (const kernels::ScheduledOperator *op : kernels::scheduledOperators())
    out += op->name() + " (" + op->entryPoints() + ")\n" + op->describe() + "\n";
  return out;
}

int runTune(const TuneOptions &options) {
  if (std::string error = checkOnly(options.only); !error.empty()) {
    std::printf("tk tune --only: %s\n", error.c_str());
    return 2;
  }
  GpuSession gpu;
  if (!gpu.ok()) {
    std::printf("tk tune needs a CUDA device: %s\n", gpu.status().message().c_str());
    return 1;
  }
  const auto &dev = gpu.device();
  const double ceiling = gpu.copyGBps(size_t(1) << 31);
  const std::string driverBuild = kernelDriverVersion();
  std::printf("%s, %d SMs, driver %s, tk %s (commit %s); copy ceiling %.0f GB/s\n", dev.name.c_str(), dev.smCount,
              describeDriver(driverBuild, dev.driverVersion).c_str(), tk::compiler::version(), tk::compiler::commit(),
              ceiling);
  tk_context ctx;
  if (tk_context_create(&ctx) != TK_SUCCESS) {
    std::printf("tk tune: %s\n", tk_last_error());
    return 2;
  }
  CaseOptions caseOptions = options;
  caseOptions.checkAll = true;
  const std::vector<BenchCase> cases = benchCases(gpu, caseOptions, ceiling);
  const auto start = Clock::now();
  auto outOfTime = [&] {
    return options.seconds > 0 && std::chrono::duration<double>(Clock::now() - start).count() > options.seconds;
  };

  std::map<TableKey, Search> searches;
  size_t skipped = 0, cut = 0; // cases not started; cases stopped part way
  for (size_t i = 0; i < cases.size(); ++i) {
    const BenchCase &c = cases[i];
    if (outOfTime()) {
      ++skipped;
      continue;
    }
    // Which operators' heuristics the case runs, with their search spaces, from a run of its own: recording a
    // space enumerates and checks every candidate on each call, host time that the timed runs must not include
    // (norm_fn's forward: 105 us a call on the build machine against 0.6 without; 293 us in the search against
    // 49.7 in tk bench on the H200). That run is checked but not timed: one call tells what the case chose.
    ctx->scheduleLog.recordSpaces = true;
    runWith(ctx, c, "", /*time=*/false);
    auto choices = ctx->scheduleLog.all();
    ctx->scheduleLog.recordSpaces = false;
    Row base = runWith(ctx, c, "");
    std::printf("%-34s %-40s heuristic %9.1f us  %s\n", c.op.c_str(), c.described.c_str(), base.us,
                base.check.c_str());
    if (!base.timed() || base.failed())
      continue;
    bool partial = false;
    for (const auto &[op, choice] : choices) {
      if (choice.source != "heuristic")
        continue;
      const auto listed = options.candidates.find(op);
      if (!options.candidates.empty() && listed == options.candidates.end())
        continue; // --candidates names other operators only
      // Past --seconds a case stops between schedules too (a case can take tens of seconds; the table is written
      // at the end). A schedule the case did not reach has fewer ratios than its row has cases, so it cannot win;
      // a row left without a winner keeps the table's schedule. An operator not begun is not entered at all.
      if (partial || outOfTime()) {
        partial = true;
        continue;
      }
      Search &s = searches[{op, choice.target, choice.problem}];
      s.cases.push_back(i);
      std::set<std::string> timedHere; // one ratio per schedule and case: fields left aside can make two the same
      for (const std::string &fields : listed != options.candidates.end() ? listed->second : choice.space) {
        if (outOfTime()) {
          partial = s.cut = true;
          break;
        }
        Row r = runWith(ctx, c, op + ":" + fields);
        const std::string ran = ctx->scheduleLog.last(op).schedule; // after fields that do not apply are left aside
        if (ran.empty() || !timedHere.insert(ran).second)
          continue; // the heuristic's own schedule, or one timed already
        if (!r.timed() || r.failed()) {
          s.refused[ran] = r.check;
          std::printf("    %-40s refused: %s\n", ran.c_str(), r.check.c_str());
          continue;
        }
        s.ratios[ran].push_back(r.us / base.us);
        std::printf("    %-40s %9.1f us  %.3f\n", ran.c_str(), r.us, r.us / base.us);
      }
    }
    if (partial)
      std::printf("    (--seconds %.0f: stopped part way through this case)\n", options.seconds);
    cut += partial;
  }

  // Per table row: the schedule with the best geometric mean over all of its
  // cases, timed again against the heuristic in the same run.
  std::map<TableKey, std::string> tuned;
  std::printf("\ntable rows (same-run times, heuristic -> tuned):\n");
  for (const auto &[key, s] : searches) {
    std::string best;
    double bestMean = 1 - options.minGain;
    for (const auto &[fields, ratios] : s.ratios)
      if (ratios.size() == s.cases.size() && !s.refused.count(fields) && geomean(ratios) < bestMean)
        best = fields, bestMean = geomean(ratios);
    if (best.empty()) {
      if (s.cut)
        std::printf("  %s %s [%s]: searched in part (--seconds), no winner among what was timed: the table's row, if "
                    "any, is kept\n",
                    key.op.c_str(), key.target.c_str(), key.problem.c_str());
      else
        std::printf("  %s %s [%s]: the heuristic's schedule (no declared schedule %.0f%% faster)\n", key.op.c_str(),
                    key.target.c_str(), key.problem.c_str(), 100 * options.minGain);
      continue;
    }
    std::vector<double> again;
    std::string line;
    for (size_t i : s.cases) {
      Row h = runWith(ctx, cases[i], "");
      Row t = runWith(ctx, cases[i], key.op + ":" + best);
      if (!h.timed() || !t.timed() || t.failed())
        break;
      again.push_back(t.us / h.us);
      char buf[160];
      std::snprintf(buf, sizeof buf, " %s: %.1f -> %.1f us;", cases[i].described.c_str(), h.us, t.us);
      line += buf;
    }
    const bool kept = again.size() == s.cases.size() && geomean(again) < 1 - options.minGain;
    std::printf("  %s %s [%s]: %s %s (%.3f, again %.3f)%s\n", key.op.c_str(), key.target.c_str(),
                key.problem.c_str(), kept ? "tuned" : "not kept", best.c_str(), bestMean, geomean(again),
                line.c_str());
    if (kept)
      tuned[key] = best + "\t# " + dev.name + ", " + today() + ", heuristic -> tuned:" + line;
  }
  if (skipped || cut)
    std::printf("%zu of %zu cases not searched, %zu searched in part (--seconds %.0f)\n", skipped, cases.size(), cut,
                options.seconds);

  // The table: its rows for what was searched replaced (dropped where the
  // heuristic won), the others kept.
  std::ostringstream table;
  table << "# The tuning table: the schedule each operator's kernel takes on a target for\n"
           "# a shape class (its config's key without the schedule), where `tk tune`\n"
           "# found one faster than the heuristic's (docs/tuning.md). Read at build\n"
           "# time. Each row: operator, target, shape class, schedule, separated by\n"
           "# tabs; the comment above it gives the same-run times it was kept for.\n"
        << "# Last written by `" << options.command << "` on " << dev.name << " ("
        << (driverBuild.empty() ? std::string() : "driver " + driverBuild + ", ") << "CUDA driver API "
        << dev.driverVersion / 1000 << "." << dev.driverVersion % 1000 / 10 << "), tk " << tk::compiler::commit()
        << ", " << today() << ".\n";
  std::map<TableKey, std::pair<std::string, std::string>> rows; // schedule, note
  for (const kernels::TableRow &r : kernels::tuningTableRows()) {
    const TableKey key{r.op, r.target, r.problem};
    const auto searched = searches.find(key);
    // A row searched to the end is replaced (by its winner, or by nothing: the heuristic won); one searched in
    // part keeps its schedule unless a winner was found and confirmed.
    if (searched == searches.end() || searched->second.cut)
      rows[key] = {r.schedule, r.note};
  }
  for (const auto &[key, row] : tuned)
    rows[key] = {row.substr(0, row.find('\t')), row.substr(row.find('\t') + 1) + "\n"};
  for (const auto &[key, row] : rows)
    table << "\n" << row.second << key.op << "\t" << key.target << "\t" << key.problem << "\t" << row.first << "\n";
  tk_context_destroy(ctx);
  if (options.outPath.empty()) {
    std::printf("\n%s", table.str().c_str());
    return 0;
  }
  std::ofstream out(options.outPath);
  out << table.str();
  if (!out) {
    std::printf("tk tune: cannot write %s\n", options.outPath.c_str());
    return 1;
  }
  std::printf("wrote %s (%zu rows tuned)\n", options.outPath.c_str(), tuned.size());
  return 0;
}

} // namespace tk::bench
