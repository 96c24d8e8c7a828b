// Loops that carry tiles (KernelBuilder::loop) on the CPU path: two
// accumulators over a dynamic number of column chunks (none included), one
// read after the other's update; and what the DSL refuses.
#include "tests/kernels/carried_loop_kernel.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

namespace {

using namespace tk::dsl;

TEST(CarriedLoop, SumsOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{8, 1024}, {12, 128}, {4, 0}, {4, 256}}) {
    std::string error;
    EXPECT_EQ(tk::test_kernels::checkCarriedSums(ctx, tk::checks::Placement{}, m, n, error), 0)
        << m << " x " << n << ": " << error;
  }
  tk_context_destroy(ctx);
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
    EXPECT_THROW(k.full({4, 32}, 1.0, DType::BF16), std::invalid_argument);
    (void)x;
  });
}

} // namespace
