// One MoE layer's routing through the C API on a GPU (checks/moe_routing.h):
// every step bit-identical to the composition of the references. Skips
// visibly without a device.
#include "checks/moe_routing.h"
#include "tests/kernels/gpu_suite.h"

namespace {

class MoeRoutingGpu : public GpuSuite<MoeRoutingGpu> {};

TEST_F(MoeRoutingGpu, ComposesLikeTheReferences) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::checks::GpuSession::Scope scope(*session);
  for (const tk::checks::MoeRoutingCase &c :
       {tk::checks::MoeRoutingCase{4001, 72, 6, 2048, 128, 3}, tk::checks::MoeRoutingCase{8001, 256, 8, 7168, 64, 4}}) {
    const tk::checks::MoeRoutingResult r = tk::checks::runMoeRouting(ctx, session, c);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.mismatches, 0) << "first at " << r.firstMismatch;
    std::printf("[ MoE routing ] %lld x %lld over %lld experts, H = %lld: %lld positions, %lld elements differ\n",
                (long long)c.tokens, (long long)c.topk, (long long)c.experts, (long long)c.hidden,
                (long long)r.positions, (long long)r.mismatches);
  }
  tk_context_destroy(ctx);
}

} // namespace
