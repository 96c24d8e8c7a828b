// Persistent grids (KernelBuilder::persistentGrid): the launch grid, the
// grid-stride loop in the PTX, and the same results on the CPU path.
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Launcher.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

using namespace tk;
using namespace tk::dsl;

namespace {

/// y = 2 x over tiles of 4 rows x 128 columns, on a persistent grid of
/// `blocksPerSm` blocks per SM.
runtime::KernelFactory doubler(int64_t blocksPerSm) {
  return [blocksPerSm](mlir::MLIRContext &ctx) {
    KernelBuilder k(ctx, "double_rows", 128);
    Dim rows = k.dynamic("rows");
    Tensor x = k.input("x", {rows, 256}, DType::F32, {256, 1});
    Tensor y = k.output("y", {rows, 256}, DType::F32);
    k.persistentGrid(blocksPerSm, {ceil_div(rows, 4), 2}, [&](const std::vector<Index> &b) {
      Tile t = k.load(x, {b[0] * 4, b[1] * 128}, {4, 128});
      k.store(y, {b[0] * 4, b[1] * 128}, t * 2.0);
    });
    return k.finish();
  };
}

TEST(PersistentGrid, LaunchesAtMostBlocksPerSmTimesSms) {
  runtime::CompiledKernel k;
  ASSERT_TRUE(runtime::compileKernel(doubler(3), *compiler::findTarget("sm_90a"), k).isOk());
  EXPECT_EQ(k.signature.persistentBlocksPerSm, 3);
  unsigned grid[3];
  // 37 rows: 10 x 2 tiles, fewer than 132 SMs x 3: one block per tile.
  ASSERT_TRUE(runtime::launchGrid(k.signature, {{"rows", 37}}, 132, grid).isOk());
  EXPECT_EQ(grid[0], 20u);
  EXPECT_EQ(grid[1], 1u);
  EXPECT_EQ(grid[2], 1u);
  // 400000 rows: 200000 tiles on 396 blocks.
  ASSERT_TRUE(runtime::launchGrid(k.signature, {{"rows", 400000}}, 132, grid).isOk());
  EXPECT_EQ(grid[0], 396u);
  // An SM that holds only 2 such blocks at once gets 2, not 3.
  ASSERT_TRUE(runtime::launchGrid(k.signature, {{"rows", 400000}}, 132, grid, 2).isOk());
  EXPECT_EQ(grid[0], 264u);
  ASSERT_TRUE(runtime::launchGrid(k.signature, {{"rows", 400000}}, 112, grid, 8).isOk());
  EXPECT_EQ(grid[0], 336u); // tk_set_num_sms(112); the resident count does not raise it
  ASSERT_TRUE(runtime::launchGrid(k.signature, {{"rows", 0}}, 132, grid).isOk());
  EXPECT_EQ(grid[0], 0u); // nothing to launch
  runtime::Status s = runtime::launchGrid(k.signature, {{"rows", 37}}, 0, grid);
  EXPECT_EQ(s.code(), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("SM count"), std::string::npos) << s.message();
  // The PTX loops from the block's index in steps of the grid's size.
  EXPECT_NE(k.ptx.find("%nctaid.x"), std::string::npos);
  EXPECT_NE(k.ptx.find("%ctaid.x"), std::string::npos);
  EXPECT_EQ(k.ptx.find("%ctaid.y"), std::string::npos);
}

TEST(PersistentGrid, OrdinaryGridsLaunchTheirExtents) {
  runtime::CompiledKernel k;
  auto plain = [](mlir::MLIRContext &ctx) {
    KernelBuilder k(ctx, "double_rows", 128);
    Dim rows = k.dynamic("rows");
    Tensor x = k.input("x", {rows, 256}, DType::F32, {256, 1});
    Tensor y = k.output("y", {rows, 256}, DType::F32);
    k.grid({ceil_div(rows, 4), 2}, [&](const std::vector<Index> &b) {
      k.store(y, {b[0] * 4, b[1] * 128}, k.load(x, {b[0] * 4, b[1] * 128}, {4, 128}) * 2.0);
    });
    return k.finish();
  };
  ASSERT_TRUE(runtime::compileKernel(plain, *compiler::findTarget("sm_90a"), k).isOk());
  EXPECT_EQ(k.signature.persistentBlocksPerSm, 0);
  unsigned grid[3];
  ASSERT_TRUE(runtime::launchGrid(k.signature, {{"rows", 37}}, 0, grid).isOk());
  EXPECT_EQ(grid[0], 10u);
  EXPECT_EQ(grid[1], 2u);
  EXPECT_EQ(k.ptx.find("%nctaid.x"), std::string::npos);
}

TEST(PersistentGrid, BlocksPerSmOutOfRangeIsAnError) {
  runtime::CompiledKernel k;
  runtime::Status s = runtime::compileKernel(doubler(0), *compiler::findTarget("sm_90a"), k);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("1 to 32 blocks per SM, got 0"), std::string::npos) << s.message();
}

// The CPU path runs every tile once, persistent or not.
TEST(PersistentGrid, CpuPathComputesEveryTile) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  const int64_t rows = 37;
  std::vector<float> x(rows * 256), y(rows * 256, -1.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.25f * (float)i - 7.0f;
  tk_tensor tx{}, ty{};
  for (tk_tensor *t : {&tx, &ty}) {
    t->dtype = TK_F32;
    t->device = TK_DEVICE_CPU;
    t->ndim = 2;
    t->shape[0] = rows, t->shape[1] = 256;
    t->strides[0] = 256, t->strides[1] = 1;
  }
  tx.data = x.data();
  ty.data = y.data();
  runtime::Status s = ctx->run(doubler(2), {&tx, &ty}, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message();
  int wrong = 0;
  for (size_t i = 0; i < x.size(); ++i)
    wrong += y[i] != 2.0f * x[i];
  EXPECT_EQ(wrong, 0);
  tk_context_destroy(ctx);
}

} // namespace
