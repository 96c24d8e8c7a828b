// Loops and pipelines that carry tiles (KernelBuilder::loop, ::pipeline)
// on the CPU path: two accumulators over a dynamic number of column chunks
// (none included: 128 columns), one read after the other's update, and an
// empty tensor refused as on the GPU; the pipeline's PTX
// for every target; and what the DSL refuses, of them and of the uniform
// branch (KernelBuilder::when; reduce_fused's skip schedule runs it), and
// a branch with no carried tiles that guards a store.
#include "tests/kernels/carried_loop_kernel.h"
#include "tk/runtime/JitCache.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

namespace {

using namespace tk::dsl;

TEST(CarriedLoop, SumsOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{8, 1024}, {12, 128}, {4, 256}}) {
    std::string error;
    EXPECT_EQ(tk::test_kernels::checkCarriedSums(ctx, tk::checks::Placement{}, m, n, error), 0)
        << m << " x " << n << ": " << error;
  }
  // An empty x under a grid of blocks: refused as the GPU's launcher refuses it, before anything is written.
  std::string error;
  EXPECT_EQ(tk::test_kernels::checkCarriedSums(ctx, tk::checks::Placement{}, 4, 0, error), -1);
  EXPECT_EQ(error, "carried_sums: tensor 'x' is empty but the grid is not");
  tk_context_destroy(ctx);
}

// The pipelined schedule (versions, slots, guards) runs on the CPU path too.
TEST(CarriedLoop, PipelineSumsOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (int64_t stages : {1, 2, 3})
    for (auto [m, n] : {std::pair<int64_t, int64_t>{8, 1024}, {12, 128}, {4, 256}, {8, 384}}) {
      std::string error;
      EXPECT_EQ(tk::test_kernels::checkCarriedSums(ctx, tk::checks::Placement{}, m, n, error, {stages}), 0)
          << "stages " << stages << ", " << m << " x " << n << ": " << error;
    }
  tk_context_destroy(ctx);
}

// Each thread's share of the two carried [4, 128] f32 tiles stays in
// registers across the cp.async loop on every target (no local memory).
TEST(CarriedLoop, PipelineCarriesInRegistersOnEveryTarget) {
  for (const tk::compiler::Target &t : tk::compiler::supportedTargets()) {
    tk::runtime::CompiledKernel k;
    tk::runtime::Status s = tk::runtime::compileKernel(
        tk::runtime::factoryOf(tk::test_kernels::buildCarriedSums, tk::test_kernels::CarriedSumsConfig{2}), t, k);
    ASSERT_TRUE(s.isOk()) << t.name << ": " << s.message();
    EXPECT_NE(k.ptx.find("cp.async.wait_group \t1;"), std::string::npos) << t.name;
    EXPECT_EQ(k.ptx.find(".local"), std::string::npos) << t.name;
  }
}

TEST(CarriedLoop, BodyMustReturnWhatItCarries) {
  mlir::MLIRContext ctx;
  ctx.loadAllAvailableDialects();
  KernelBuilder k(ctx, "bad_loop", 32);
  Tensor x = k.input("x", {4, 32}, DType::F32);
  k.grid({1}, [&](const std::vector<Index> &) {
    Tile acc = k.full({4, 32}, 0.0);
    try {
      k.loop(k.index(0), k.index(2), {acc}, [&](const Index &, const std::vector<Tile> &c) -> std::vector<Tile> {
        return {c[0].to(DType::BF16)};
      });
      ADD_FAILURE() << "a body returning bf16 for an f32 carry was accepted";
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find("loop carries tile 0 as f32 [4, 32] but the body returns bf16 [4, 32]"),
                std::string::npos)
          << e.what();
    }
    EXPECT_THROW(k.loop(k.index(0), k.index(2), {acc},
                        [&](const Index &, const std::vector<Tile> &) -> std::vector<Tile> { return {}; }),
                 std::invalid_argument);
    try {
      k.pipeline(k.index(0), k.index(2), 2, {acc}, [&](const Index &, const std::vector<Tile> &c) -> std::vector<Tile> {
        return {c[0], c[0]};
      });
      ADD_FAILURE() << "a pipeline body returning two tiles for one carried was accepted";
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find("pipeline body returns 2 tiles for 1 carried"), std::string::npos)
          << e.what();
    }
    EXPECT_THROW(k.pipeline(k.index(0), k.index(2), 9, {acc},
                            [&](const Index &, const std::vector<Tile> &c) -> std::vector<Tile> { return c; }),
                 std::invalid_argument);
    EXPECT_THROW(k.full({4, 32}, 1.0, DType::BF16), std::invalid_argument);
    (void)x;
  });
}

/// Stores x's row block into y only in the blocks whose index is odd: a `when` with no carried tiles, its
/// body only a store (expand_to_fused's merged schedule branches so between copying and zeroing).
tk::dsl::BuiltKernel buildOddBlocksCopy(mlir::MLIRContext &ctx) {
  KernelBuilder k(ctx, "odd_blocks_copy", 64);
  Tensor x = k.input("x", {8, 32}, DType::F32);
  Tensor y = k.output("y", {8, 32}, DType::F32);
  k.grid({4}, [&](const std::vector<Index> &b) {
    Tile odd = map({k.iota({1, 1}, 0)}, DType::I32,
                   [&](const std::vector<Scalar> &v) { return v[0].index(b[0]) & v[0].constantI32(1); });
    std::vector<Tile> none = k.when(odd, {}, [&](const std::vector<Tile> &) -> std::vector<Tile> {
      k.store(y, {b[0] * 2, k.index(0)}, k.load(x, {b[0] * 2, k.index(0)}, {2, 32}));
      return {};
    });
    EXPECT_TRUE(none.empty());
  });
  return k.finish();
}

// A branch without results is well formed (its blocks end in one scf.yield each), compiles for every target, and
// on the CPU path stores only where it is taken: the even blocks' rows keep their poison.
TEST(CarriedLoop, WhenWithoutCarriedTilesGuardsItsStores) {
  for (const tk::compiler::Target &t : tk::compiler::supportedTargets()) {
    tk::runtime::CompiledKernel k;
    tk::runtime::Status s = tk::runtime::compileKernel(tk::runtime::factoryOf(buildOddBlocksCopy), t, k);
    ASSERT_TRUE(s.isOk()) << t.name << ": " << s.message();
    EXPECT_NE(k.ptx.find("st.global"), std::string::npos) << t.name;
  }
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::checks::Placement cpu;
  std::vector<float> x(8 * 32), y(8 * 32, -7.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i);
  void *dx = cpu.put(x.data(), x.size() * 4), *dy = cpu.put(y.data(), y.size() * 4);
  tk_tensor tx = cpu.tensor(dx, TK_F32, {8, 32}), ty = cpu.tensor(dy, TK_F32, {8, 32});
  tk::runtime::Status s = ctx->run(tk::runtime::factoryOf(buildOddBlocksCopy), {&tx, &ty}, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message();
  cpu.get(y.data(), dy, y.size() * 4);
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 32; ++c)
      ASSERT_EQ(y[r * 32 + c], (r / 2) % 2 ? x[r * 32 + c] : -7.0f) << "row " << r << ", column " << c;
  tk_context_destroy(ctx);
}

TEST(CarriedLoop, WhenTakesOneI32ElementAndReturnsWhatItCarries) {
  mlir::MLIRContext ctx;
  ctx.loadAllAvailableDialects();
  KernelBuilder k(ctx, "bad_when", 32);
  Tensor x = k.input("x", {4, 32}, DType::F32);
  k.grid({1}, [&](const std::vector<Index> &) {
    Tile acc = k.full({4, 32}, 0.0);
    auto same = [](const std::vector<Tile> &c) { return c; };
    try {
      k.when(k.full({4, 1}, 1.0, DType::I32), {acc}, same);
      ADD_FAILURE() << "a [4, 1] condition was accepted";
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find("when: the condition must be a one-element i32 tile, got i32 [4, 1]"),
                std::string::npos)
          << e.what();
    }
    EXPECT_THROW(k.when(k.full({1, 1}, 1.0), {acc}, same), std::invalid_argument); // f32
    try {
      k.when(k.full({1, 1}, 1.0, DType::I32), {acc}, [](const std::vector<Tile> &c) -> std::vector<Tile> {
        return {c[0], c[0]};
      });
      ADD_FAILURE() << "a body returning two tiles for one carried was accepted";
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find("when body returns 2 tiles for 1 carried"), std::string::npos) << e.what();
    }
    (void)x;
  });
}

} // namespace
