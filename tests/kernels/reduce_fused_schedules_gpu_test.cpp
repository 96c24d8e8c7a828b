// reduce_fused at schedules other than its heuristic on the GPU: the rolled
// slot loop with empty slots skipped by a uniform branch (skip=1, tile.
// to_scalar and scf.if), on 128 and 256 threads, and the rolled loop
// without it, over the benchmark's routings, fp8 outputs with x_sf and the
// edge cases (positions past M, non-finite values, M = 0): every output
// byte against the reference. Skips visibly without a device.
#include "checks/reduce_fused_check.h"
#include "tests/kernels/gpu_suite.h"

namespace {

class ReduceFusedSchedulesGpu : public GpuSuite<ReduceFusedSchedulesGpu> {};

TEST_F(ReduceFusedSchedulesGpu, SkippedSlotsAreBitExact) {
  const std::vector<tk::checks::ReduceFusedCase> cases = {
      {4001, 9, 256, 64, 7168},                                  // 4 of 256 experts: most slots empty
      {4001, 8, 72, 8, 7168},                                    // 9 of 72
      {3001, 6, 256, 8, 4096, TK_F32, true, true, true},         // f32 in, e4m3 out with sf and x_sf
      {100, 9, 256, 64, 512, TK_F32, true, true, true, true, 3}, // edges
      {999, 2, 32, 8, 2048, TK_BF16, false, false, false, true, 4},
      {50, 1, 8, 2, 256, TK_BF16, false, true, true, true, 5}};
  checkSchedules<tk::checks::ReduceFusedCase>("reduce_fused",
                                              {{"rolled=1,skip=1", 0},
                                               {"rolled=1,skip=1,cols=8192,threads=256", 0},
                                               {"rolled=1,skip=1,cols=4096,threads=128", 0},
                                               {"rolled=1,cols=8192,threads=128", 0}},
                                              cases, tk::checks::checkReduceFused);
}

} // namespace
