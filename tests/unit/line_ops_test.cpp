// The DSL's line ops (tile.scan, tile.count_equal): compiled for every target
// and checked against C++ on the CPU path (tests/kernels/line_ops_kernel.h).
#include "tests/kernels/line_ops_kernel.h"
#include "tk/runtime/JitCache.h"

#include <gtest/gtest.h>

namespace {

using tk::test_kernels::LineShape;
const LineShape kShared{16, 64, 128, 0}, kWarpRows{8, 32, 256, 4};

TEST(LineOps, CompileForEveryTarget) {
  for (const tk::compiler::Target &target : tk::compiler::supportedTargets())
    for (const LineShape &shape : {kShared, kWarpRows}) {
      tk::runtime::CompiledKernel out;
      tk::runtime::Status s =
          tk::runtime::compileKernel(tk::runtime::factoryOf(tk::test_kernels::buildLineOps, shape), target, out);
      ASSERT_TRUE(s.isOk()) << target.name << ": " << s.message();
      EXPECT_NE(out.ptx.find("bar.sync"), std::string::npos) << target.name; // the scans: through shared memory
      // count_equal along a warp's row of 32: match.any.sync, one per kind.
      EXPECT_EQ(out.ptx.find("match.any.sync") != std::string::npos, shape.rows == 8) << target.name << shape.key();
    }
}

TEST(LineOps, MatchCOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::string error;
  for (const LineShape &shape : {kShared, kWarpRows})
    EXPECT_EQ(tk::test_kernels::checkLineOps(ctx, tk::checks::Placement{}, shape, 64, error), 0)
        << shape.key() << ": " << error;
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

TEST(LineOps, RefuseFloatsAndBadDims) {
  mlir::MLIRContext ctx;
  tk::dsl::KernelBuilder k(ctx, "bad", 32);
  tk::dsl::Tensor x = k.input("x", {4, 32}, tk::dsl::DType::F32);
  k.grid({1}, [&](const std::vector<tk::dsl::Index> &) {
    tk::dsl::Tile t = k.load(x, {k.index(0), k.index(0)}, {4, 32});
    EXPECT_THROW(scan_sum(t, 0), std::invalid_argument);
    EXPECT_THROW(count_equal(t.to(tk::dsl::DType::F32), 1), std::invalid_argument);
    tk::dsl::Tile i =
        map({t}, tk::dsl::DType::I32, [](const std::vector<tk::dsl::Scalar> &v) { return v[0].f32ToI32(); });
    EXPECT_THROW(scan_sum(i, 2), std::invalid_argument);
    EXPECT_THROW(count_equal(i, -1), std::invalid_argument);
  });
}

} // namespace
