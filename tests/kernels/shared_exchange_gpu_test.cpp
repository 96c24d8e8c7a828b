// Fragments through 132 KB of dynamic shared memory on the GPU (the runtime
// raises the kernel's limit and launches with it), and 196 KB where the
// device allows it. Skips visibly without a device.
#include "tests/kernels/gpu_suite.h"
#include "tests/kernels/shared_exchange_kernel.h"

namespace {

class SharedExchangeGpu : public GpuSuite<SharedExchangeGpu> {};

TEST_F(SharedExchangeGpu, Exact) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int passed = 0, total = 0;
  auto run = [&](int64_t m, tk::test_kernels::SharedExchangeConfig c) {
    std::string error;
    int64_t wrong = tk::test_kernels::checkSharedExchange(ctx, tk::checks::Placement{session}, m, error, c);
    EXPECT_EQ(wrong, 0) << m << " rows, " << c.key() << ": " << error;
    passed += wrong == 0;
    ++total;
  };
  for (int64_t m : {128, 384, 132 * 128 * 3})
    run(m, {});
  if (session->device().maxSharedPerBlockOptin >= 200704)
    run(132 * 128, {64});
  std::printf("[ shared exchange ] %d of %d cases exact on %s (dynamic shared memory, up to %d bytes allowed)\n",
              passed, total, session->device().name.c_str(), session->device().maxSharedPerBlockOptin);
  tk_context_destroy(ctx);
}

} // namespace
