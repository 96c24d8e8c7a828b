//===- lossless_cases.cpp - per_block_cast_lossless's tests and rows ------===//
//
// quant.md 4.9: out and out_sf bit-exact against the reference, and dec(out)
// * sf_out == dec(x) * sf_in for every element (the check tests both).
//===----------------------------------------------------------------------===//
#include "checks/lossless_check.h"
#include "checks/operator_table.h"

#include <limits>

namespace tk::checks {
namespace {

using Blocks = std::vector<std::pair<int64_t, int64_t>>;

std::vector<LosslessCase> cpuGrid() {
  std::vector<LosslessCase> cases;
  for (int64_t m : {1, 37, 130})
    for (int64_t k : {576, 2048})
      for (auto [bOut, gOut] : Blocks{{1, 128}, {32, 32}, {32, 128}, {1, 256}, {128, 128}})
        for (bool inPacked : {false, true})
          for (bool outPacked : {false, true})
            cases.push_back({m, k, 1, 32, bOut, gOut, inPacked, outPacked, (uint64_t)(m + k + bOut + gOut)});
  // Taller input blocks, and narrower ones into wide output blocks.
  cases.push_back({64, 1024, 16, 32, 32, 128, false, false, 3});
  cases.push_back({40, 512, 1, 16, 32, 256, true, false, 4});
  return cases;
}

/// M x K x input flags (F,T,F), (T,T,T) x output flags x out block in {(1,128),
/// (32,32), (128,128)}, in block (1,32); the refusal of an input block out of
/// exponent range, and of input scales that are not powers of two.
std::vector<LosslessCase> gpuGrid() {
  std::vector<LosslessCase> cases;
  for (int64_t m : {4001, 8001})
    for (int64_t k : {576, 2048, 2560, 3072, 4096, 6144, 7168})
      for (bool inPacked : {false, true})
        for (bool outPacked : {false, true})
          for (auto [bOut, gOut] : Blocks{{1, 128}, {32, 32}, {128, 128}})
            cases.push_back({m, k, 1, 32, bOut, gOut, inPacked, outPacked, (uint64_t)(m + k + bOut)});
  cases.push_back({4001, 7168, 1, 32, 1, 128, true, true, 5, /*outOfRange=*/true});
  for (float scale : {3.0f, -2.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    LosslessCase notPowerOfTwo{4001, 7168, 1, 32, 128, 128, false, true, 6};
    notPowerOfTwo.badScale = scale;
    cases.push_back(notPowerOfTwo);
  }
  return cases;
}

} // namespace
} // namespace tk::checks

TK_REGISTER_CASES(lossless) {
  Table<LosslessCase> t{"per_block_cast_lossless", checkPerBlockLossless};
  t.cpu = cpuGrid();
  t.gpu = gpuGrid();
  // FP4 (1, 32) to e4m3 (1, 128) with packed UE8M0 and fp32 scales, and to
  // (128, 128) blocks; bytes = xq + xsf + out + out sf. The time includes the
  // wait for the kernel and the read-back of its range flags.
  t.bench = [](const RowSelection &s) {
    return s.headline ? std::vector<LosslessCase>{}
                      : std::vector<LosslessCase>{{32768, 7168, 1, 32, 1, 128, true, true},
                                                  {32768, 7168, 1, 32, 1, 128, false, false},
                                                  {32768, 7168, 1, 32, 128, 128, true, true}};
  };
  t.small = {{256, 7168, 1, 32, 1, 128, true, true}, {256, 7168, 1, 32, 128, 128}, {256, 7168, 1, 32, 32, 32}};
  registerTable(t);
}
