// The Engram gate's forward at schedules other than its default (one CTA
// per row; pipelines of 3 and 4 stages, 129-172 KB of shared memory at
// H = 7168) on the GPU, over the table's kinds of cases: within the
// forward's tolerances, out the same bits with and without the statistics.
// The backward's rows kernel unpipelined and with 3 stages (the table grid
// runs its default, 2; 172 KB at H = 7168 with 3): within the backward's
// tolerances. Skips visibly without a device.
#include "checks/engram_gate_check.h"
#include "tests/kernels/gpu_suite.h"
#include "tk/runtime/Context.h"

namespace {

class EngramGateSchedulesGpu : public GpuSuite<EngramGateSchedulesGpu> {};

TEST_F(EngramGateSchedulesGpu, TableKinds) {
  // The table grid runs the default (stages 2, rows 8); these, the rest (3 x 2H bytes of rows a stage).
  checkSchedules<tk::checks::GateForwardCase>(
      "engram_gate_fwd",
      {{"stages=1", 0}, {"stages=3,rows=16", 3 * 6 * 7168}, {"stages=4,rows=64,threads=512", 4 * 6 * 7168}},
      {{4001, 4, 7168},
       {8001, 4, 4096},
       {4001, 4, 2048},
       {4001, 4, 7168, true, true, 2},
       {999, 3, 1000, true, true, 3},
       {0, 4, 7168},
       {5, 4, 6144}},
      tk::checks::checkGateForward);
}

TEST_F(EngramGateSchedulesGpu, BackwardTableKinds) {
  // Full blocks, P > T (empty blocks), P = 1 (one CTA per stream runs every token), strided, n = 3, odd H (where
  // split_v runs the value kernel); the table grid runs the default (2 stages of 4 x 2H bytes).
  checkSchedules<tk::checks::GateBackwardCase>(
      "engram_gate_bwd",
      {{"stages=1", 0}, {"stages=3", 3 * 8 * 7168}, {"split_v=1", 2 * 10 * 7168}, {"split_v=1,stages=1", 0}},
      {{4001, 4, 7168},
       {8001, 4, 4096},
       {100, 4, 2048, 132},
       {300, 4, 7168, 1}, // 4001 tokens: a call took seconds on the one CTA a stream, and the suite its 100 s
       {4001, 4, 7168, 132, true, 2},
       {999, 3, 1000, 7, true, 3}},
      tk::checks::checkGateBackward);
}

TEST_F(EngramGateSchedulesGpu, FusedBackward) {
  // The fused kernel (one CTA over every stream of its tokens) in chunks of 1024 columns (the default where 1024
  // divides H; at H = 1000 the whole row) and of 512 on 512 threads, with 3 stages, and with its partials in shared
  // memory: full blocks, P > T, P = 1, strided, n = 3 with H = 1000, H = 7168 (the partials in registers spill
  // there: checked, not fast; in shared memory they do not).
  const std::vector<tk::checks::GateBackwardCase> cases = {{8001, 4, 4096},
                                                           {100, 4, 2048, 132},
                                                           {300, 4, 4096, 1},
                                                           {4001, 4, 7168, 132, true, 2},
                                                           {999, 3, 1000, 7, true, 3}};
  checkSchedules<tk::checks::GateBackwardCase>("engram_gate_bwd",
                                               {{"fused=1", 2 * 10 * 7168},
                                                {"fused=1,threads=512,chunk=512", 2 * 10 * 7168},
                                                {"fused=1,stages=3", 3 * 10 * 7168},
                                                {"fused=1,shared_partials=1", 2 * 16 * 7168}},
                                               cases, tk::checks::checkGateBackward);
  // The fused kernel ran (a call whose buffers do not fit falls back to the rows and value kernels, and logs the
  // heuristic): the last call of each schedule at H = 7168, where every one of them fits an H100.
  for (const char *schedule : {"fused=1", "fused=1,shared_partials=1"}) {
    if (!sharedFits(std::string("engram_gate_bwd:") + schedule, 2 * 16 * 7168))
      continue;
    tk::test::ScheduledContext ctx(std::string("engram_gate_bwd:") + schedule);
    tk::checks::GpuSession::Scope caseBuffers(*session);
    EXPECT_TRUE(tk::checks::checkGateBackward(session, ctx, {200, 4, 7168}, false).exact()) << schedule;
    EXPECT_NE(static_cast<tk_context>(ctx)->scheduleLog.last("engram_gate_bwd").schedule.find("fused=1"),
              std::string::npos)
        << schedule << ": the call fell back to the rows and value kernels";
  }
}

TEST_F(EngramGateSchedulesGpu, GradWReducePipelines) {
  // The weight gradients' chunks through shared memory (stages): the reference's P = 132 at its two H, a partial
  // CTA and scalar accesses (n H = 154), one partial row.
  checkSchedules<tk::checks::GradWReduceCase>("engram_grad_w_reduce",
                                              {{"rows=4,columns=512,threads=128,stages=8", 8 * 4 * 512 * 4},
                                               {"rows=2,columns=512,threads=128,stages=4", 4 * 2 * 512 * 4},
                                               {"rows=8,columns=256,threads=256,stages=4", 4 * 8 * 256 * 4}},
                                              {{132, 4, 7168}, {132, 4, 4096}, {5, 3, 1000}, {33, 2, 77}, {1, 4, 7168}},
                                              tk::checks::checkGradWReduce);
}

} // namespace
