//===- operator_table.cpp - the registered tables -------------------------===//
#include "checks/operator_table.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace tk::checks {

namespace registration {
void registerAll(); // generated from checks/CMakeLists.txt's *_cases.cpp sources
}

namespace {

std::vector<OperatorTable> *filling = nullptr;

const std::vector<OperatorTable> &tables() {
  static const std::vector<OperatorTable> all = [] {
    std::vector<OperatorTable> built;
    filling = &built;
    registration::registerAll();
    filling = nullptr;
    return built;
  }();
  return all;
}

} // namespace

void registerTable(OperatorTable table) {
  if (!filling)
    throw std::logic_error("registerTable outside a TK_REGISTER_CASES body");
  for (const OperatorTable &t : *filling)
    if (t.op == table.op)
      throw std::logic_error("two tables for operator " + table.op);
  filling->push_back(std::move(table));
}

const std::vector<OperatorTable> &operatorTables() { return tables(); }

const OperatorTable *findTable(const std::string &op) {
  for (const OperatorTable &t : tables())
    if (t.op == op)
      return &t;
  return nullptr;
}

CheckResult runCase(const TableCase &c, GpuSession *gpu, tk_context ctx, bool time) {
  // A case's device buffers are freed after it: a grid of 150 cases in one
  // test otherwise held them all (side by side, the GPU tests ran out of memory).
  std::optional<GpuSession::Scope> scope;
  if (gpu)
    scope.emplace(*gpu);
  try {
    return c.run(gpu, ctx, time);
  } catch (const std::exception &e) {
    CheckResult r;
    r.status = TK_ERROR_INTERNAL;
    r.error = std::string("the check failed: ") + e.what();
    return r;
  }
}

/// Whether `op` contains one of `only`'s comma-separated names (every op when `only` is empty), as tk bench's
/// --only takes them.
static bool selected(const std::string &op, const std::string &only) {
  if (only.empty())
    return true;
  for (size_t at = 0; at <= only.size();) {
    const size_t end = std::min(only.find(',', at), only.size());
    const std::string name = only.substr(at, end - at);
    if (!name.empty() && op.find(name) != std::string::npos)
      return true;
    at = end + 1;
  }
  return false;
}

SmallCasesRun runSmallCases(const std::string &only, GpuSession *gpu, tk_context ctx) {
  SmallCasesRun run;
  for (const OperatorTable &table : operatorTables()) {
    if (!selected(table.op, only))
      continue;
    for (const TableCase &c : table.small) {
      CheckResult r = runCase(c, gpu, ctx, /*time=*/false);
      ++run.ran;
      run.failures += !r.exact();
      std::printf("%-46s %-40s %s\n", table.op.c_str(), c.described.c_str(), r.verdict().c_str());
      std::fflush(stdout);
    }
  }
  return run;
}

} // namespace tk::checks
