// swiglu_forward_and_per_token_cast (quant.md 4.16) on a GPU beyond its
// table's grid (Gpu_swiglu_forward_and_per_token_cast.TableGrid): the
// persistent counting schedule on fewer SMs. Bit-exact against the reference
// with CUDA's expf from the nvcc-compiled oracle. Skips visibly without a device.
#include "checks/swiglu_check.h"
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/schedule_context.h"

#include <gtest/gtest.h>

#include <string>

namespace {

class SwigluPerTokenCastGpu : public GpuSuite<SwigluPerTokenCastGpu> {};

// The persistent counting schedule (4 blocks per SM, block totals; the
// default is one tile per block) on a grid sized for 20 fewer SMs, over the
// table's counted cases: the spec runs each case for num_SMs in {SMs - 20,
// SMs} (tk_set_num_sms; the table's test runs them on all SMs).
TEST_F(SwigluPerTokenCastGpu, PersistentCountingOnFewerSmsIsBitExact) {
  TK_SKIP_WITHOUT_EXPF_ORACLE();
  tk::test::ScheduledContext persistent("swiglu_forward_and_per_token_cast:count_blocks=4");
  const tk::checks::ExpTable *deviceExp = tk::checks::swigluExpOracle(session);
  int32_t sms = session->device().smCount;
  ASSERT_GT(sms, 20);
  ASSERT_EQ(tk_set_num_sms(persistent, sms - 20), TK_SUCCESS);
  CaseTally tally;
  for (const tk::checks::SwigluCastCase &c : tk::checks::swigluCastGpuGrid())
    if (c.count) {
      tk::checks::GpuSession::Scope caseBuffers(*session);
      tally.check(tk::checks::checkSwigluPerTokenCast(session, persistent, c, false, deviceExp),
                  tk::checks::describe(c) + " persistent num_sms=" + std::to_string(sms - 20));
    }
  EXPECT_GT(tally.total, 0) << "the persistent counting schedule never ran";
  tally.report("swiglu_forward_and_per_token_cast persistent", *session);
}

} // namespace
