// A CPU-path call that also compiles its kernel for GPU targets
// (tk_context_s::alsoCompileFor, `tk check --compile-targets`): a kernel
// that runs on the CPU path but does not lower for a GPU (here a layout
// conflict: a loaded column laid out before the reduction it is combined
// with) fails the call with the target and the diagnostic named, and writes
// no output; a kernel that lowers (the same with a row iota, which layout
// inference makes again in the reduction's layout) runs as before.
#include "checks/gpu_session.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/KernelFactory.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace tk::dsl;

constexpr int64_t kRows = 4, kCols = 32;

/// out[r] = c[r] + max_j x[r, j], the column c made before the row maximum:
/// loaded (a conflict) or the row index (recomputed).
BuiltKernel buildColumnPlusMax(mlir::MLIRContext &ctx, bool loaded) {
  KernelBuilder k(ctx, "column_plus_max", 128);
  Tensor x = k.input("x", {kRows, kCols}, DType::F32);
  Tensor c = k.input("c", {kRows, 1}, DType::F32);
  Tensor y = k.output("y", {kRows, 1}, DType::F32);
  k.grid({1}, [&](const std::vector<Index> &) {
    Index zero = k.index(0);
    Tile column = loaded ? k.load(c, {zero, zero}, {kRows, 1})
                         : map({k.iota({kRows, 1}, 0)}, DType::F32,
                               [](const std::vector<Scalar> &v) { return v[0].signedToF32(); });
    Tile m = reduce_max(k.load(x, {zero, zero}, {kRows, kCols}), 1);
    k.store(y, {zero, zero}, column + m);
  });
  return k.finish();
}
BuiltKernel conflicting(mlir::MLIRContext &ctx) { return buildColumnPlusMax(ctx, true); }
BuiltKernel lowering(mlir::MLIRContext &ctx) { return buildColumnPlusMax(ctx, false); }

struct Call {
  std::vector<float> x = std::vector<float>(kRows * kCols), c = {0, 1, 2, 3}, y = std::vector<float>(kRows, -7.0f);
  tk_tensor xt, ct, yt;
  Call() {
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = (float)(i % 5);
    xt = tk::checks::Placement{}.tensor(x.data(), TK_F32, {kRows, kCols});
    ct = tk::checks::Placement{}.tensor(c.data(), TK_F32, {kRows, 1});
    yt = tk::checks::Placement{}.tensor(y.data(), TK_F32, {kRows, 1});
  }
};

TEST(CompileOtherTargets, AKernelThatDoesNotLowerForAGpuFailsTheCpuCall) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  Call plain;
  tk::runtime::Status s = ctx->run(tk::runtime::factoryOf(conflicting), {&plain.xt, &plain.ct, &plain.yt}, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message(); // the CPU path alone runs it
  EXPECT_EQ(plain.y[1], 1.0f + 4.0f);
  ctx->alsoCompileFor = {*tk::compiler::findTarget("sm_90a")};
  Call checked;
  s = ctx->run(tk::runtime::factoryOf(conflicting), {&checked.xt, &checked.ct, &checked.yt}, nullptr);
  EXPECT_EQ(s.code(), TK_ERROR_COMPILE);
  EXPECT_NE(s.message().find("compiling for sm_90a as well"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("layout conflict"), std::string::npos) << s.message();
  EXPECT_EQ(checked.y[0], -7.0f) << "no output is written when the call fails";
  tk_context_destroy(ctx);
}

TEST(CompileOtherTargets, AKernelThatLowersRunsOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  ctx->alsoCompileFor = {*tk::compiler::findTarget("sm_80"), *tk::compiler::findTarget("sm_100a")};
  for (int i = 0; i < 2; ++i) {
    Call c;
    tk::runtime::Status s = ctx->run(tk::runtime::factoryOf(lowering), {&c.xt, &c.ct, &c.yt}, nullptr);
    ASSERT_TRUE(s.isOk()) << s.message();
    for (int64_t r = 0; r < kRows; ++r)
      EXPECT_EQ(c.y[r], (float)r + 4.0f) << r;
  }
  tk_context_destroy(ctx);
}

} // namespace
