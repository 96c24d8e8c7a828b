// Every operator table's GPU grid (the spec's) as the test Gpu_<op>.TableGrid.
// Skips visibly without a CUDA device, and, for the SwiGLU operators, in a
// build without the nvcc-compiled expf oracle.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/table_grid.h"

#include <algorithm>
#include <string>

namespace {

/// Cases [begin, end) of a table's GPU grid.
class TableGridGpu : public GpuSuite<TableGridGpu> {
public:
  TableGridGpu(const tk::checks::OperatorTable &table, size_t begin, size_t end)
      : table_(table), begin_(begin), end_(end) {}
  void TestBody() override {
    if (table_.needsExpfOracle)
      TK_SKIP_WITHOUT_EXPF_ORACLE();
    std::vector<tk::checks::TableCase> part(table_.gpu.begin() + begin_, table_.gpu.begin() + end_);
    tk::test::runTableCases(table_.op, part, session, session->device().name);
  }

private:
  const tk::checks::OperatorTable &table_;
  size_t begin_, end_;
};

// A grid of more than kPart cases is several tests (TableGrid, TableGridPart2,
// ...), so that a GPU run can spread them over processes (scripts/device_run.sh
// runs each test as one): the host references of large grids take minutes.
constexpr size_t kPart = 150;

const bool registered = [] {
  for (const tk::checks::OperatorTable &t : tk::checks::operatorTables())
    for (size_t begin = 0, part = 1; begin < t.gpu.size(); begin += kPart, ++part) {
      const size_t end = std::min(t.gpu.size(), begin + kPart);
      const std::string name = part == 1 ? "TableGrid" : "TableGridPart" + std::to_string(part);
      ::testing::RegisterTest(("Gpu_" + t.op).c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                              [&t, begin, end]() -> TableGridGpu * { return new TableGridGpu(t, begin, end); });
    }
  return true;
}();

} // namespace
