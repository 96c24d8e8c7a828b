// expand_to_fused and expand_to_fused_with_sf in one launch (schedule field
// merged: blocks past the tokens' zero pos_to_expert's padding rows, each
// branch the whole block's; with_sf's scale factors moved by column block 0),
// and one token per CTA with empty slots skipped by a branch (skip), with
// several tiles of padding positions a CTA (pad_rows),
// over the benchmark's routings, every scale-factor layout and the edge
// cases (slots naming positions past M): every output byte against the
// reference. Skips visibly without a device.
#include "checks/expand_check.h"
#include "tests/kernels/gpu_suite.h"

namespace {

class ExpandSchedulesGpu : public GpuSuite<ExpandSchedulesGpu> {};

TEST_F(ExpandSchedulesGpu, MergedAndSkippingSchedulesAreBitExact) {
  using Sf = tk::checks::ExpandCase::Sf;
  const std::vector<tk::checks::ExpandCase> cases = {
      {7502, 2, 256, 8, 7168},                                    // 32 of 256 experts
      {4001, 9, 256, 64, 7168},                                   // 4 of 256: most positions padding
      {40001, 9, 256, 8, 7168, TK_BF16, Sf::None, 128, true},     // edges
      {4001, 6, 72, 8, 576, TK_F8_E4M3, Sf::None, 128, true},     // e4m3, a narrow row
      {3001, 8, 256, 8, 7168, TK_F8_E4M3, Sf::ColPacked, 32},     // packed UE8M0, column-major
      {3001, 9, 256, 8, 7168, TK_F8_E4M3, Sf::ColF32, 128, true}, // f32 column-major
      {2001, 2, 72, 8, 576, TK_F8_E4M3, Sf::RowF32, 32}};         // f32 row-major
  checkSchedules<tk::checks::ExpandCase>("expand_to_fused",
                                         {{"merged=1", 0},
                                          {"merged=1,rows=1,cols=2048", 0},
                                          {"merged=1,rows=16,cols=512", 0},
                                          {"rows=1,cols=8192,threads=128,skip=1", 0},
                                          {"rows=1,cols=8192,threads=64,skip=1,merged=1", 0},
                                          {"rows=1,cols=8192,threads=64,skip=1,merged=1,pad_rows=16", 0},
                                          {"merged=1,rows=8,cols=2048,pad_rows=64", 0}},
                                         cases, tk::checks::checkExpand);
}

} // namespace
