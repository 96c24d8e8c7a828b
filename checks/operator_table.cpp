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

std::string checkOnly(const std::string &only) {
  for (size_t begin = 0; !only.empty() && begin <= only.size();) {
    size_t end = std::min(only.find(',', begin), only.size());
    std::string name = only.substr(begin, end - begin);
    if (!findTable(name))
      return "unknown operator '" + name + "'";
    begin = end + 1;
  }
  return "";
}

bool selected(const std::string &only, const std::string &op) {
  return only.empty() || ("," + only + ",").find("," + op + ",") != std::string::npos;
}

SmallCasesRun runSmallCases(const std::string &only, GpuSession *gpu, tk_context ctx, bool grid) {
  SmallCasesRun run;
  for (const OperatorTable &table : operatorTables()) {
    if (!selected(only, table.op))
      continue;
    for (const TableCase &c : grid ? table.gpu : table.small) {
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
