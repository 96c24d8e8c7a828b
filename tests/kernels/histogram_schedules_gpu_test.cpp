// group_count and aux_fi counted by rows (schedule field table: each CTA's
// histogram a row of a scratch table, its columns summed by a second kernel)
// over the spec's MoE grid, ids outside the groups and a large count: every
// count and frequency bit for bit against the reference. Skips visibly
// without a device.
#include "checks/histogram_check.h"
#include "checks/moe_inputs.h"
#include "tests/kernels/gpu_suite.h"

namespace {

class HistogramSchedulesGpu : public GpuSuite<HistogramSchedulesGpu> {};

TEST_F(HistogramSchedulesGpu, CountingByRowsIsExact) {
  std::vector<tk::checks::HistogramCase> cases;
  for (const tk::checks::MoeGridPoint &g : tk::checks::moeGrid())
    for (int64_t ka : {int64_t{0}, g.topk})
      cases.push_back({g.tokens, g.topk, g.experts, g.ranks, ka, false, (uint64_t)g.tokens});
  for (int64_t ka : {0, 9})
    cases.push_back({40001, 9, 256, 8, ka, true});
  cases.push_back({400001, 8, 4096, 1, 8});
  checkSchedules<tk::checks::HistogramCase>(
      "group_count",
      {{"table=1", 0},
       {"table=1,tile=8192,threads=512", 0},
       {"table=1,tile=1024,threads=128", 0},
       {"tile=4096,threads=256", 0}}, // zeroing and atomics, which sm_90a's table row no longer runs by default
      cases, tk::checks::checkHistogram);
}

} // namespace
