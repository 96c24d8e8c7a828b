// Runs an operator table's cases (checks/operator_table.h) as one test:
// every case must succeed and match its reference bit for bit.
#pragma once

#include "checks/operator_table.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace tk::test {

/// Runs `cases` on the GPU of `gpu` (null: the CPU path) in a fresh context;
/// prints "[ op ] passed of total <where> cases bit-exact".
inline void runTableCases(const std::string &op, const std::vector<checks::TableCase> &cases, checks::GpuSession *gpu,
                          const std::string &where) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS) << tk_last_error();
  int passed = 0;
  for (const checks::TableCase &c : cases) {
    checks::CheckResult r = checks::runCase(c, gpu, ctx, /*time=*/false);
    EXPECT_EQ(r.status, TK_SUCCESS) << c.described << ": " << r.error;
    EXPECT_TRUE(r.exact()) << c.described << ": " << r.describe();
    passed += r.exact();
  }
  std::printf("[ %s ] %d of %zu cases bit-exact on %s\n", op.c_str(), passed, cases.size(), where.c_str());
  tk_context_destroy(ctx);
}

} // namespace tk::test
