//===- operator_table.h - one table per operator: its tests and its rows ---===//
//
// Each operator says once which cases its CPU tests, its GPU tests and its
// benchmark rows are, and how one is checked (the check routine, which also
// holds the spec's byte formula of the case). The test binaries register a
// test per table (Cpu_<op>.TableGrid, Gpu_<op>.TableGrid), and `tk bench` /
// `tk tune` time the rows; nothing else lists the operators' cases.
//
//   // checks/<unit>_cases.cpp
//   TK_REGISTER_CASES(<unit>) {
//     Table<MyCase> t{"my_op", checkMyOp};
//     t.cpu = {...};  t.gpu = {...};  t.bench = [](const RowSelection &s) {...};
//     registerTable(t);
//   }
//
// The build calls every *_cases.cpp's registration (checks/CMakeLists.txt).
//===----------------------------------------------------------------------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <functional>
#include <string>
#include <vector>

namespace tk::checks {

/// Which benchmark rows: `tk bench`'s --full and --headline.
struct RowSelection {
  bool full = false;     ///< the spec's whole benchmark grid instead of a representative subset
  bool headline = false; ///< only the headline shapes (ablation runs)
  /// Check every row; otherwise a table may time rows of one kernel
  /// unchecked after checking the first (`tk tune` checks all it times).
  bool checkAll = false;
};

/// One case, type-erased: run on the GPU of `gpu` (null: the CPU path) in
/// `ctx`, it checks the operator against its reference and, with `time`,
/// times it (CheckResult::ms, ::bytes).
struct TableCase {
  std::string described; ///< "<shape> <variant>", as tests print and --match sees it
  std::function<CheckResult(GpuSession *gpu, tk_context ctx, bool time)> run;
};

struct OperatorTable {
  std::string op;                          ///< the operator (kernels/registry.h's name)
  std::vector<TableCase> cpu;              ///< the spec's grid, shrunk to what the CPU path runs in CI
  std::vector<TableCase> gpu;              ///< the spec's grid on a GPU
  /// Every variant at small shapes: what `tk check` runs under the
  /// sanitizers (compute-sanitizer's racecheck, AddressSanitizer on the CPU path).
  std::vector<TableCase> small;
  std::function<std::vector<TableCase>(const RowSelection &)> bench; ///< the spec's benchmark shapes
  /// An operator whose cases are checked by another's (the three per-block
  /// casts share one check): that operator's name, and the lists may be empty.
  std::string checkedWith;
  /// The GPU check compares with CUDA's expf (checks/expf_oracle.h): GPU
  /// tests skip visibly in a build without nvcc.
  bool needsExpfOracle = false;
};

/// A table written with the operator's own case type.
template <typename Case> struct Table {
  using Check = std::function<CheckResult(GpuSession *, tk_context, const Case &, bool time)>;
  std::string op;
  Check check;
  std::vector<Case> cpu, gpu, small;
  std::function<std::vector<Case>(const RowSelection &)> bench = [](const RowSelection &) {
    return std::vector<Case>{};
  };
  std::string checkedWith;
  bool needsExpfOracle = false;

  OperatorTable erase() const {
    auto wrap = [check = check](const std::vector<Case> &cases) {
      std::vector<TableCase> out;
      for (const Case &c : cases) // describe(Case): found next to the case type
        out.push_back({describe(c),
                       [check, c](GpuSession *gpu, tk_context ctx, bool time) { return check(gpu, ctx, c, time); }});
      return out;
    };
    OperatorTable t{op, wrap(cpu), wrap(gpu), wrap(small), nullptr, checkedWith, needsExpfOracle};
    t.bench = [wrap, rows = bench](const RowSelection &s) { return wrap(rows(s)); };
    return t;
  }
};

/// Called from TK_REGISTER_CASES bodies only.
void registerTable(OperatorTable table);
template <typename Case> void registerTable(const Table<Case> &table) { registerTable(table.erase()); }

/// Every table, in the order of checks/CMakeLists.txt's sources.
const std::vector<OperatorTable> &operatorTables();
const OperatorTable *findTable(const std::string &op);

/// Runs a case, turning an exception (a missing oracle, a CUDA failure) into
/// a failed result that says so.
CheckResult runCase(const TableCase &c, GpuSession *gpu, tk_context ctx, bool time);

/// "" when every name in `only` (comma-separated) is an operator's, else the
/// message: tk bench's, tk tune's and tk check's --only.
std::string checkOnly(const std::string &only);
/// Whether `only` (comma-separated operator names, "" = all) selects `op`.
bool selected(const std::string &only, const std::string &op);

/// `tk check`'s work: every table's small cases of the operators `only`
/// selects (with `grid`, their GPU grids instead: `tk check --grid`), one
/// line each on stdout. Returns the cases run and how many of them were not
/// bit-exact.
struct SmallCasesRun {
  int ran = 0, failures = 0;
};
SmallCasesRun runSmallCases(const std::string &only, GpuSession *gpu, tk_context ctx, bool grid = false);

} // namespace tk::checks

#define TK_REGISTER_CASES(unit)                                                                                       \
  namespace tk::checks::registration {                                                                               \
  void register_##unit();                                                                                            \
  }                                                                                                                  \
  void tk::checks::registration::register_##unit()
