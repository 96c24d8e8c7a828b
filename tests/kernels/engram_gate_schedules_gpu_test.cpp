// The Engram gate's forward at schedules other than its default (one CTA
// per row; pipelines of 3 and 4 stages, 129-172 KB of shared memory at
// H = 7168) on the GPU, over the table's kinds of cases: within the
// forward's tolerances, out the same bits with and without the statistics.
// The backward's rows kernel unpipelined and with 3 stages (the table grid
// runs its default, 2; 172 KB at H = 7168 with 3): within the backward's
// tolerances. Skips visibly without a device.
#include "checks/engram_gate_check.h"
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/schedule_context.h"

namespace {

class EngramGateSchedulesGpu : public GpuSuite<EngramGateSchedulesGpu> {
protected:
  /// Whether `bytes` of shared rows (and the reductions' scratch) fit this
  /// device (an A100 has 163 KB per block, sm_86 and sm_89 99 KB); says so
  /// when they do not, and the schedule is skipped.
  bool fits(const std::string &schedule, int64_t bytes) {
    const int limit = session->device().maxSharedPerBlockOptin;
    if (bytes + 4096 <= limit)
      return true;
    std::printf("[ skipped ] %s: %lld bytes of shared rows at H = 7168, the device allows %d\n", schedule.c_str(),
                (long long)bytes, limit);
    return false;
  }
};

TEST_F(EngramGateSchedulesGpu, TableKinds) {
  using tk::checks::GateForwardCase;
  const std::vector<GateForwardCase> cases = {{4001, 4, 7168},       {8001, 4, 4096},       {4001, 4, 2048},
                                              {4001, 4, 7168, true, true, 2}, {999, 3, 1000, true, true, 3},
                                              {0, 4, 7168},          {5, 4, 6144}};
  CaseTally tally;
  // The table grid runs the default (stages 2, rows 8); these, the rest.
  for (auto [schedule, stages] : {std::pair<const char *, int64_t>{"stages=1", 0},
                                  {"stages=3,rows=16", 3},
                                  {"stages=4,rows=64,threads=512", 4}}) {
    if (!fits(schedule, stages * 6 * 7168))
      continue;
    tk::test::ScheduledContext ctx(std::string("engram_gate_fwd:") + schedule);
    for (const GateForwardCase &c : cases)
      tally.check(tk::checks::checkGateForward(session, ctx, c, false),
                  std::string(schedule) + " " + tk::checks::describe(c));
  }
  tally.report("engram_gate_fwd schedules", *session);
}

TEST_F(EngramGateSchedulesGpu, BackwardTableKinds) {
  using tk::checks::GateBackwardCase;
  // Full blocks, P > T (empty blocks), P = 1 (one CTA per stream runs every token), strided, n = 3, odd H.
  const std::vector<GateBackwardCase> cases = {{4001, 4, 7168},
                                               {8001, 4, 4096},
                                               {100, 4, 2048, 132},
                                               {4001, 4, 7168, 1},
                                               {4001, 4, 7168, 132, true, 2},
                                               {999, 3, 1000, 7, true, 3}};
  CaseTally tally;
  for (auto [schedule, stages] : {std::pair<const char *, int64_t>{"stages=1", 0}, {"stages=3", 3}}) {
    if (!fits(schedule, stages * 8 * 7168))
      continue;
    tk::test::ScheduledContext ctx(std::string("engram_gate_bwd:") + schedule);
    for (const GateBackwardCase &c : cases)
      tally.check(tk::checks::checkGateBackward(session, ctx, c, false),
                  std::string(schedule) + " " + tk::checks::describe(c));
  }
  tally.report("engram_gate_bwd schedules", *session);
}

} // namespace
