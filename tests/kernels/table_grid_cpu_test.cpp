// Every operator table's CPU grid as the test Cpu_<op>.TableGrid (the CPU
// path, host tensors through the C API), and the tables' coverage of the
// shipped operators.
#include "tests/kernels/table_grid.h"
#include "kernels/registry.h"

#include <set>

namespace {

class TableGridCpu : public ::testing::Test {
public:
  explicit TableGridCpu(const tk::checks::OperatorTable &table) : table_(table) {}
  void TestBody() override { tk::test::runTableCases(table_.op, table_.cpu, nullptr, "the CPU path"); }

private:
  const tk::checks::OperatorTable &table_;
};

// Registered before main runs the tests; the fixture type is ::testing::Test,
// as TEST()'s, so a suite may hold both (Cpu_per_token_cast has other tests).
const bool registered = [] {
  for (const tk::checks::OperatorTable &t : tk::checks::operatorTables())
    if (!t.cpu.empty())
      ::testing::RegisterTest(("Cpu_" + t.op).c_str(), "TableGrid", nullptr, nullptr, __FILE__, __LINE__,
                              [&t]() -> ::testing::Test * { return new TableGridCpu(t); });
  return true;
}();

// Every shipped operator has a table with CPU and GPU cases (its own, or
// those of the operator it is checked with) and benchmark rows; every table
// names a shipped operator. So CI's coverage of an operator cannot silently drop.
TEST(OperatorTables, CoverEveryShippedOperator) {
  ASSERT_TRUE(registered);
  std::set<std::string> shipped;
  for (const auto &k : tk::kernels::shippedKernels())
    shipped.insert(k.name);
  ASSERT_FALSE(shipped.empty());
  for (const tk::checks::OperatorTable &t : tk::checks::operatorTables())
    EXPECT_TRUE(shipped.count(t.op)) << "table for " << t.op << ", which is not a shipped operator";
  for (const std::string &op : shipped) {
    const tk::checks::OperatorTable *t = tk::checks::findTable(op);
    ASSERT_TRUE(t) << "shipped operator " << op << " has no table (checks/<unit>_cases.cpp)";
    const tk::checks::OperatorTable *cases = t;
    if (cases->cpu.empty() || cases->gpu.empty()) {
      ASSERT_FALSE(t->checkedWith.empty()) << op << "'s table has no CPU or no GPU cases and names no operator whose "
                                                    "check covers it";
      cases = tk::checks::findTable(t->checkedWith);
      ASSERT_TRUE(cases) << op << " is checked with " << t->checkedWith << ", which has no table";
    }
    EXPECT_FALSE(t->cpu.empty() && cases->cpu.empty()) << op << " has no CPU cases";
    EXPECT_FALSE(t->gpu.empty() && cases->gpu.empty()) << op << " has no GPU cases";
    if (t->checkedWith.empty())
      EXPECT_FALSE(t->bench({}).empty()) << op << " has no benchmark rows";
  }
}

} // namespace
