//===- bench_commands.cpp - tk bench, tk tune -----------------------------===//
#include "bench/benchmark.h"
#include "bench/first_call.h"
#include "bench/tune.h"
#include "kernels/common/operator_schedule.h"
#include "tools/tk/commands.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>

namespace tk::tools {

namespace {

/// Parses the case options both commands take, and `extra` (flag -> handler
/// of its value, or of "" for a flag without one). "" or the error.
using Handler = std::function<std::string(const std::string &)>;
std::string parseArgs(const std::vector<std::string> &args, bench::CaseOptions &options,
                      const std::map<std::string, std::pair<bool, Handler>> &extra) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    const bool caseValue = a == "--only" || a == "--match";
    auto it = extra.find(a);
    const bool takesValue = caseValue || (it != extra.end() && it->second.first);
    if (takesValue && i + 1 == args.size())
      return a + " needs a value";
    if (a == "--full")
      options.full = true;
    else if (a == "--headline")
      options.headline = true;
    else if (a == "--only")
      options.only = args[++i];
    else if (a == "--match")
      options.match = args[++i];
    else if (it != extra.end()) {
      if (std::string error = it->second.second(takesValue ? args[++i] : ""); !error.empty())
        return a + ": " + error;
    } else
      return "unknown argument '" + a + "'";
  }
  return "";
}

/// --table FILE: the process's tuning table, instead of the built-in one.
std::string loadTable(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return "cannot read " + path;
  std::stringstream text;
  text << in.rdbuf();
  return kernels::replaceTuningTable(text.str(), path);
}

/// Runs `body`; a CUDA error (a faulting kernel leaves the context
/// unusable) ends the run with what was printed so far.
int guarded(const char *command, const std::function<int()> &body) {
  // Rows reach a log as they are measured.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    return body();
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "%s: stopped after the rows above: %s\n(the next row's operator failed on the device; its "
                 "GPU test in tk_gpu_tests names the case)\n",
                 command, e.what());
    return 1;
  }
}

} // namespace

int cmdBench(const std::vector<std::string> &args) {
  // A fresh process measuring one operator's first call for --first-call.
  if (args.size() == 2 && args[0] == "--first-call-child")
    return bench::runFirstCallChild(args[1]);
  bench::BenchOptions options;
  bool firstCall = false, list = false;
  std::string bundle;
  std::string error = parseArgs(
      args, options,
      {{"--json", {true, [&](const std::string &v) { return options.jsonPath = v, std::string(); }}},
       {"--baselines", {true, [&](const std::string &v) { return options.baselinesPath = v, std::string(); }}},
       {"--no-table", {false, [&](const std::string &) { return options.useTable = false, std::string(); }}},
       {"--first-call", {false, [&](const std::string &) { return firstCall = true, std::string(); }}},
       {"--bundle", {true, [&](const std::string &v) { return bundle = v, std::string(); }}},
       {"--list", {false, [&](const std::string &) { return list = true, std::string(); }}},
       {"--table", {true, loadTable}}});
  if (error.empty() && list)
    error = bench::selectionProblem(options); // a run checks it itself, before looking for a GPU
  if (!error.empty()) {
    std::fprintf(stderr, "tk bench: %s\n", error.c_str());
    return 2;
  }
  if (list) { // the rows a run with these options would time; no GPU needed
    if (firstCall || !bundle.empty() || !options.jsonPath.empty()) {
      std::fprintf(stderr, "tk bench: --list prints the rows a timing run takes; it goes without --first-call, "
                           "--bundle and --json\n");
      return 2;
    }
    const auto rows = bench::benchRowNames(options);
    for (const auto &[op, described] : rows)
      std::printf("%-34s %s\n", op.c_str(), described.c_str());
    std::printf("%zu rows\n", rows.size());
    return 0;
  }
  if (!bundle.empty() && !firstCall) {
    std::fprintf(stderr, "tk bench: --bundle goes with --first-call\n");
    return 2;
  }
  if (firstCall)
    return guarded("tk bench --first-call", [&] { return bench::runFirstCall(options, bundle); });
  return guarded("tk bench", [&] { return bench::runBenchmark(options); });
}

int cmdTune(const std::vector<std::string> &args) {
  bench::TuneOptions options;
  bool list = false;
  std::string table; // --table's file
  auto number = [](const std::string &v, double &out) {
    char *end = nullptr;
    out = std::strtod(v.c_str(), &end);
    return v.empty() || *end || out < 0 ? "takes a non-negative number, got '" + v + "'" : std::string();
  };
  std::string error = parseArgs(
      args, options,
      {{"-o", {true, [&](const std::string &v) { return options.outPath = v, std::string(); }}},
       {"--seconds", {true, [&](const std::string &v) { return number(v, options.seconds); }}},
       {"--min-gain", {true, [&](const std::string &v) { return number(v, options.minGain); }}},
       {"--candidates", {true, [&](const std::string &v) { return bench::parseCandidates(v, options.candidates); }}},
       {"--list", {false, [&](const std::string &) { return list = true, std::string(); }}},
       {"--table", {true, [&](const std::string &v) { return table = v, loadTable(v); }}}});
  if (!error.empty()) {
    std::fprintf(stderr, "tk tune: %s\n", error.c_str());
    return 2;
  }
  // Passes continue a file with --table; -o alone starts from the built-in table, so a second pass to the same
  // file would drop the first pass's rows.
  std::error_code exists;
  if (!options.outPath.empty() && options.outPath != table && std::filesystem::exists(options.outPath, exists) &&
      !std::filesystem::equivalent(options.outPath, "kernels/tuning/table.tsv", exists))
    std::fprintf(stderr,
                 "tk tune: note: %s exists and is rewritten from the %s table and this run's rows; to keep its rows, "
                 "pass --table %s\n",
                 options.outPath.c_str(), table.empty() ? "built-in" : table.c_str(), options.outPath.c_str());
  if (list) {
    std::printf("%s", bench::describeSchedules().c_str());
    return 0;
  }
  options.command = "tk tune";
  for (const std::string &a : args)
    options.command += " " + a;
  return guarded("tk tune", [&] { return bench::runTune(options); });
}

} // namespace tk::tools
