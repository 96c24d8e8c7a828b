// mhc_pre_norm_fn's forward at schedules other than its heuristic on the GPU:
// 256 tokens per CTA on 8 warps (32 rows a warp, two row pairs reusing each
// fragment of fn's chunk), with and without launch bounds for two CTAs per
// SM; partial token blocks, the norm weight, one-kernel and
// split G; and CTAs of one warp, whose fn chunk is loaded as the tensor
// core's b registers (no shared memory, no barrier in the K walk), with the
// loads in the loop and through a 3-stage pipeline; and the product as wgmma. Against the fp64 reference within the
// table grid's tolerances, a second call bit-identical. Skips visibly without a device.
#include "checks/norm_fn_check.h"
#include "tests/kernels/gpu_suite.h"

namespace {

class NormFnSchedulesGpu : public GpuSuite<NormFnSchedulesGpu> {};

TEST_F(NormFnSchedulesGpu, TwoRowPairsPerWarp) {
  const std::vector<tk::checks::NormFnCase> cases = {
      {false, 8192, 4, 7168, false}, {false, 8192, 4, 1280, true}, {false, 4096, 4, 2560, true},
      {false, 300, 4, 7168, false, false, 2}, // a partial block of 256 tokens
      {false, 13, 4, 4096, true, false, 3},   {false, 1000, 4, 96, true, false, 4}, // G = 384: 2 splits
      {false, 40, 4, 16, false, false, 5}};                                      // G = 64: one kernel
  checkSchedules<tk::checks::NormFnCase>("mhc_pre_norm_fn_fwd",
                                         {{"tokens=256,threads=256,blocks=2", 0},
                                          {"tokens=256,threads=256", 0}},
                                         cases, tk::checks::checkNormFn);
}

// wgmma on sm_90a (mma.sync elsewhere): the heuristic's 128 tokens (two warpgroups), loads in the loop, 32-column
// chunks, 64 tokens on one warpgroup, and 256 tokens (two row pairs a warp) without launch bounds.
TEST_F(NormFnSchedulesGpu, Warpgroups) {
  const std::vector<tk::checks::NormFnCase> cases = {
      {false, 8192, 4, 7168, false},        {false, 8192, 4, 1280, true},
      {false, 4096, 4, 2560, true},         {false, 300, 4, 7168, false, false, 2},
      {false, 13, 4, 4096, true, false, 3}, {false, 1000, 4, 96, true, false, 4},
      {false, 40, 4, 16, false, false, 5}};
  checkSchedules<tk::checks::NormFnCase>("mhc_pre_norm_fn_fwd",
                                         {{"wgmma=1", 0},
                                          {"wgmma=1,stages=1", 0},
                                          {"wgmma=1,chunk=32", 0},
                                          {"wgmma=1,tokens=64,threads=128", 0},
                                          {"wgmma=1,tokens=256,threads=256,blocks=1", 0}},
                                         cases, tk::checks::checkNormFn);
}

TEST_F(NormFnSchedulesGpu, OneWarpRhsInRegisters) {
  const std::vector<tk::checks::NormFnCase> cases = {
      {false, 8192, 4, 7168, false},          {false, 8192, 4, 1280, true},         {false, 4096, 4, 2560, true},
      {false, 300, 4, 7168, false, false, 2}, {false, 13, 4, 4096, true, false, 3}, // partial blocks of 64 tokens
      {false, 1000, 4, 96, true, false, 4},   {false, 40, 4, 16, false, false, 5}}; // G = 384, 64: 2 splits
  checkSchedules<tk::checks::NormFnCase>("mhc_pre_norm_fn_fwd",
                                         {{"tokens=64,chunk=32,threads=32,stages=1,splits=2", 0},
                                          {"tokens=64,chunk=32,threads=32,stages=3,splits=2", 0},
                                          {"tokens=32,chunk=64,threads=32,stages=1,splits=1", 0}},
                                         cases, tk::checks::checkNormFn);
}

} // namespace
