// sinkhorn_normalize_bwd unrolled with ptxas's registers capped for several
// CTAs an SM (schedule field min_blocks, spilling what does not fit) within
// the spec's tolerance and bit-identical from call to call; the rolled form
// (schedule field rolled, the default) the same bits as the unrolled one.
// Skips visibly without a device.
#include "checks/sinkhorn_check.h"
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/sinkhorn_forms.h"

namespace {

class SinkhornSchedulesGpu : public GpuSuite<SinkhornSchedulesGpu> {};

TEST_F(SinkhornSchedulesGpu, CappedRegistersStayWithinTolerance) {
  const std::vector<tk::checks::SinkhornCase> cases = {
      {65536, 4, 10, true}, {8192, 4, 10, true, 2}, {1000, 8, 3, true, 3}, {7, 16, 5, true, 4}};
  checkSchedules<tk::checks::SinkhornCase>("sinkhorn_normalize_bwd",
                                           {{"rolled=0,min_blocks=4", 0}, {"rolled=0,min_blocks=6", 0}}, cases,
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

} // namespace
