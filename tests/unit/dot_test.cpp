// tile.dot built by the DSL: mma.sync in the PTX of every GPU target, the
// CPU path bit for bit against the in-order reference (exact TF32/bf16
// products added one at a time), and the DSL's refusals.
#include "tests/kernels/dot_kernel.h"
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

using namespace tk;
using namespace tk::dsl;

namespace {

using test_kernels::DotTestConfig;

const std::vector<DotTestConfig> kConfigs = {
    {DType::BF16, DType::F32, 64, 24},        // the mHC skinny GEMM's mix: TF32
    {DType::F32, DType::F32, 32, 8},          // TF32, both rounded
    {DType::BF16, DType::BF16, 64, 16},       // bf16 products
    {DType::BF16, DType::F32, 64, 32, true},  // dot(x, transpose(w)), w [N, K] as mhc_pre_norm_fn's fn
    {DType::BF16, DType::BF16, 32, 16, true}, // the same, bf16
    // K in chunks carried in an accumulator: 64 rows per 4 warps run from
    // registers (lhs and accumulator in mma.sync's fragments), 32 staged.
    {DType::BF16, DType::F32, 256, 24, true, 64, 64},
    {DType::BF16, DType::F32, 128, 16, false, 32, 64},
    {DType::BF16, DType::BF16, 128, 16, true, 64, 64},
    {DType::F32, DType::F32, 64, 8, false, 32, 64},
    {DType::BF16, DType::BF16, 128, 16, false, 64, 64}, // bf16 [K, N] rhs: column reads packed in pairs
    {DType::F32, DType::F32, 128, 16, true, 64, 64},
    {DType::BF16, DType::F32, 128, 24, true, 64, 32},
    // One warp: the transposed w loaded as the b registers, nothing staged.
    {DType::BF16, DType::F32, 128, 24, true, 64, 32, 32},
    {DType::F32, DType::F32, 64, 16, true, 32, 16, 32},
    {DType::BF16, DType::BF16, 128, 16, true, 64, 64, 32},
};

// dot(x, w, acc, DotEngine::Warpgroup): 64 or 128 rows on 4 or 8 warps (one or two warpgroups, one or two row
// pairs a warp), f32 and bf16 lhs, chunks of 32 and 64 K.
const std::vector<DotTestConfig> kWarpgroupConfigs = {
    {DType::BF16, DType::F32, 256, 32, true, 64, 64, 128, true},
    {DType::F32, DType::F32, 128, 16, true, 32, 64, 128, true},
    {DType::BF16, DType::F32, 256, 24, true, 64, 128, 128, true},
    {DType::BF16, DType::F32, 128, 32, true, 64, 128, 256, true},
};

/// The dot test kernel's PTX for `target` ("" and a failure where it does not compile).
std::string ptxOf(const DotTestConfig &c, const compiler::Target &target) {
  runtime::CompiledKernel out;
  runtime::Status s = runtime::compileKernel(runtime::factoryOf(test_kernels::buildDotTest, c), target, out);
  EXPECT_TRUE(s.isOk()) << c.key() << " " << target.name << ": " << s.message();
  return out.ptx;
}

TEST(Dot, CompilesToMmaSyncForEveryTarget) {
  for (const DotTestConfig &c : kConfigs)
    for (const compiler::Target &target : compiler::supportedTargets()) {
      const std::string ptx = ptxOf(c, target);
      const std::string shape = c.a == DType::BF16 && c.b == DType::BF16 ? "m16n8k16.row.col.f32.bf16.bf16.f32"
                                                                        : "m16n8k8.row.col.f32.tf32.tf32.f32";
      EXPECT_NE(ptx.find("mma.sync.aligned." + shape), std::string::npos) << c.key() << " " << target.name;
    }
}

// A one-warp block's transposed rhs needs no shared memory and no barrier; with four warps it is staged.
TEST(Dot, OneWarpTakesTheTransposedRhsInRegisters) {
  auto ptx = [](int64_t threads, int64_t rows) {
    runtime::KernelFactory factory([threads, rows](mlir::MLIRContext &ctx) {
      KernelBuilder k(ctx, "one_warp_dot", threads);
      Tensor x = k.input("x", {rows, 64}, DType::BF16), w = k.input("w", {24, 64}, DType::F32);
      Tensor y = k.output("y", {rows, 24}, DType::F32);
      k.grid({1}, [&](const std::vector<Index> &) {
        Index zero = k.index(0);
        Tile acc = k.full({rows, 24}, 0.0);
        k.store(y, {zero, zero},
                dot(k.load(x, {zero, zero}, {rows, 64}), transpose(k.load(w, {zero, zero}, {24, 64})), acc));
      });
      return k.finish();
    });
    runtime::CompiledKernel out;
    runtime::Status s = runtime::compileKernel(factory, *compiler::findTarget("sm_90a"), out);
    EXPECT_TRUE(s.isOk()) << s.message();
    return out.ptx;
  };
  const std::string one = ptx(32, 32);
  EXPECT_NE(one.find("mma.sync"), std::string::npos);
  EXPECT_EQ(one.find(".shared"), std::string::npos) << one;
  EXPECT_EQ(one.find("bar.sync"), std::string::npos);
  const std::string four = ptx(128, 64);
  EXPECT_NE(four.find("mma.sync"), std::string::npos);
  EXPECT_NE(four.find(".shared"), std::string::npos);
  EXPECT_NE(four.find("bar.sync"), std::string::npos);
}

// On sm_90a a warpgroup dot issues wgmma m64nNk8 (N = 32, 24, 16) and no mma.sync; elsewhere it is the
// mma.sync form.
TEST(Dot, WarpgroupDotsRunAsWgmmaOnlyOnSm90a) {
  for (const DotTestConfig &c : kWarpgroupConfigs)
    for (const compiler::Target &target : compiler::supportedTargets()) {
      const std::string ptx = ptxOf(c, target);
      const bool wgmma = target.name == "sm_90a";
      EXPECT_EQ(ptx.find("wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.n) + "k8.f32.tf32.tf32") !=
                    std::string::npos,
                wgmma)
          << c.key() << " " << target.name;
      EXPECT_EQ(ptx.find("mma.sync.aligned.m16n8k8") != std::string::npos, !wgmma) << c.key() << " " << target.name;
    }
}

TEST(Dot, CpuPathMatchesTheInOrderReference) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::vector<DotTestConfig> configs = kConfigs;
  configs.insert(configs.end(), kWarpgroupConfigs.begin(), kWarpgroupConfigs.end());
  for (const DotTestConfig &c : configs)
    for (int64_t rows : {32, 40, 96}) {
      std::string error;
      EXPECT_EQ(test_kernels::checkDot(ctx, checks::Placement{}, c, rows, /*tolerance=*/0, error), 0)
          << c.key() << " rows " << rows << ": " << error;
    }
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

// The rounding itself: a value just under a TF32 tie stays, a tie rounds away
// from zero, and the operand's low 13 bits never reach the product.
TEST(Dot, Tf32RoundingIsAddAndMask) {
  EXPECT_EQ(test_kernels::tf32Rounded(1.0f + 0x1p-11f), 1.0f + 0x1p-10f); // a tie: away from zero
  EXPECT_EQ(test_kernels::tf32Rounded(-(1.0f + 0x1p-11f)), -(1.0f + 0x1p-10f));
  EXPECT_EQ(test_kernels::tf32Rounded(1.0f + 0x1p-12f), 1.0f);
}

// dot(a, transpose(w)) multiplies by w's rows in place: the DSL builds tile.dot {rhs_transposed} on w and drops
// the transpose, so no exchange between threads is lowered for it.
TEST(Dot, TransposedRhsFoldsIntoTheProduct) {
  mlir::MLIRContext ctx;
  DotTestConfig c{DType::BF16, DType::F32, 64, 32, true};
  dsl::BuiltKernel built = test_kernels::buildDotTest(ctx, c);
  int dots = 0, transposes = 0;
  built.module->walk([&](mlir::Operation *op) {
    if (auto d = llvm::dyn_cast<tile::DotOp>(op))
      dots += d.getRhsTransposed() ? 1 : 100;
    transposes += llvm::isa<tile::TransposeOp>(op);
  });
  EXPECT_EQ(dots, 1);
  EXPECT_EQ(transposes, 0);
}

TEST(Dot, RefusesShapesTensorCoresCannotTake) {
  mlir::MLIRContext ctx;
  KernelBuilder k(ctx, "bad", 128);
  Tensor a = k.input("a", {32, 64}, DType::F32), b = k.input("b", {64, 24}, DType::F32);
  Tensor h = k.input("h", {32, 8}, DType::BF16), i = k.input("i", {8, 8}, DType::BF16);
  Tensor n = k.input("n", {64, 20}, DType::F32), q = k.input("q", {64, 8}, DType::I32);
  k.grid({1}, [&](const std::vector<Index> &) {
    Tile ta = k.load(a, {k.index(0), k.index(0)}, {32, 64}), tb = k.load(b, {k.index(0), k.index(0)}, {64, 24});
    EXPECT_NO_THROW(dot(ta, tb));
    EXPECT_THROW(dot(tb, ta), std::invalid_argument); // inner sizes 24 and 32
    Tile th = k.load(h, {k.index(0), k.index(0)}, {32, 8}), ti = k.load(i, {k.index(0), k.index(0)}, {8, 8});
    EXPECT_THROW(dot(th, ti), std::invalid_argument); // bf16 needs K a multiple of 16
    EXPECT_THROW(dot(ta, k.load(n, {k.index(0), k.index(0)}, {64, 20})), std::invalid_argument); // N = 20
    EXPECT_THROW(dot(ta, k.load(q, {k.index(0), k.index(0)}, {64, 8})), std::invalid_argument);  // i32
  });
}

} // namespace
