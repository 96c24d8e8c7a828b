// sinkhorn_normalize_bwd with ptxas's registers capped for several CTAs an
// SM (schedule field min_blocks, spilling what does not fit) within the
// spec's tolerance and bit-identical from call to call, and the call's
// heuristic taking the cap exactly for grids with 4 CTAs for every SM; the
// rolled form (schedule field rolled) the same bits as the unrolled one.
// Skips visibly without a device.
#include "checks/sinkhorn_check.h"
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/sinkhorn_forms.h"
#include "tk/runtime/Context.h"

namespace {

class SinkhornSchedulesGpu : public GpuSuite<SinkhornSchedulesGpu> {};

TEST_F(SinkhornSchedulesGpu, CappedRegistersStayWithinTolerance) {
  const std::vector<tk::checks::SinkhornCase> cases = {
      {65536, 4, 10, true}, {8192, 4, 10, true, 2}, {1000, 8, 3, true, 3}, {7, 16, 5, true, 4}};
  checkSchedules<tk::checks::SinkhornCase>("sinkhorn_normalize_bwd", {{"min_blocks=4", 0}, {"min_blocks=6", 0}}, cases,
                                           tk::checks::checkSinkhorn);
}

TEST_F(SinkhornSchedulesGpu, RolledGivesTheUnrolledBits) {
  for (bool backward : {false, true})
    for (int64_t matrices : {37, 65536}) {
      tk::checks::GpuSession::Scope buffers(*session);
      tk::test::expectRolledGivesTheUnrolledBits(session, tk::test::sinkhornFormCases(backward, matrices));
    }
  tk::checks::GpuSession::Scope buffers(*session);
  tk::test::expectRolledGivesTheUnrolledBits(session, {{65536, 4, 10, true, 3}}, "rows=8,threads=64");
}

TEST_F(SinkhornSchedulesGpu, TheCallCapsRegistersWhereTheGridFillsFourCtasAnSm) {
  const int sms = session->device().smCount;
  // The default tile: 32 matrices of 4 x 4 a CTA.
  for (auto [matrices, capped] :
       std::vector<std::pair<int64_t, bool>>{{4 * 32 * int64_t(sms), true}, {4 * 32 * int64_t(sms) - 32, false}}) {
    tk::test::ScheduledContext ctx("");
    tk::checks::GpuSession::Scope buffers(*session);
    const tk::checks::SinkhornCase c{matrices, 4, 10, true};
    CaseTally tally;
    tally.check(tk::checks::checkSinkhorn(session, ctx, c, false), tk::checks::describe(c));
    bool sawCap = false;
    for (const auto &kernel : static_cast<tk_context>(ctx)->cache.snapshot())
      sawCap |= kernel->config.find("min_blocks=4") != std::string::npos;
    EXPECT_EQ(sawCap, capped) << matrices << " matrices on " << sms << " SMs";
    // The schedule log names what ran: the heuristic's (empty) fields, and the cap the call fitted.
    const tk::runtime::ScheduleChoice ran = static_cast<tk_context>(ctx)->scheduleLog.last("sinkhorn_normalize_bwd");
    EXPECT_EQ(ran.source, "heuristic");
    EXPECT_EQ(ran.fitted, capped ? "min_blocks=4" : "") << matrices << " matrices on " << sms << " SMs";
  }
}

} // namespace
