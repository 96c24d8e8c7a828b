// tile.dot on tensor cores (mma.sync through shared memory or from registers,
// and wgmma where the device is sm_90a and the dot asks for warpgroups)
// against the in-order reference, within the tensor core's own order of
// adding one instruction's products. Skips visibly without a device.
#include "tests/kernels/dot_kernel.h"
#include "tests/kernels/gpu_suite.h"

namespace {

class DotGpu : public GpuSuite<DotGpu> {};

TEST_F(DotGpu, TensorCoreProductsWithinOrderRounding) {
  using tk::dsl::DType;
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  int passed = 0, cases = 0;
  using Config = tk::test_kernels::DotTestConfig;
  // The last ten carry K's chunks in an accumulator: 64 rows per 4 warps from
  // registers (mma.sync's fragments), 32 through shared memory; 16-64 rows on one warp.
  for (Config c :
       {Config{DType::BF16, DType::F32, 64, 24}, Config{DType::F32, DType::F32, 256, 32},
        Config{DType::BF16, DType::BF16, 512, 16}, Config{DType::BF16, DType::F32, 128, 32, true},
        Config{DType::BF16, DType::BF16, 256, 32, true}, Config{DType::BF16, DType::F32, 256, 24, true, 64, 64},
        Config{DType::BF16, DType::F32, 128, 16, false, 32, 64},
        Config{DType::BF16, DType::BF16, 128, 16, true, 64, 64}, Config{DType::F32, DType::F32, 64, 8, false, 32, 64},
        Config{DType::BF16, DType::BF16, 128, 16, false, 64, 64}, Config{DType::F32, DType::F32, 128, 16, true, 64, 64},
        Config{DType::BF16, DType::F32, 128, 24, true, 64, 32},
        // One warp: the transposed w loaded straight into the b registers.
        Config{DType::BF16, DType::F32, 128, 24, true, 64, 32, 32},
        Config{DType::F32, DType::F32, 64, 16, true, 32, 16, 32},
        Config{DType::BF16, DType::BF16, 128, 16, true, 64, 64, 32},
        // Warpgroups: wgmma on sm_90a, fn-like transposed f32 rhs, one and two warpgroups, one and two row pairs.
        Config{DType::BF16, DType::F32, 256, 32, true, 64, 64, 128, true},
        Config{DType::F32, DType::F32, 128, 16, true, 32, 64, 128, true},
        Config{DType::BF16, DType::F32, 256, 24, true, 64, 128, 128, true},
        Config{DType::BF16, DType::F32, 128, 32, true, 64, 128, 256, true}})
    for (int64_t rows : {32, 40, 100, 4096}) {
      std::string error;
      // Sums of K exact products in another order: within K ulps of their magnitude.
      const double tolerance = (double)c.k * 0x1p-24;
      int64_t wrong = tk::test_kernels::checkDot(ctx, tk::checks::Placement{session}, c, rows, tolerance, error);
      EXPECT_EQ(wrong, 0) << c.key() << " rows " << rows << ": " << error;
      passed += wrong == 0;
      ++cases;
    }
  std::printf("[ tile.dot ] %d of %d cases within K x 2^-24 of the products' magnitude on %s\n", passed, cases,
              session->device().name.c_str());
  tk_context_destroy(ctx);
}

} // namespace
