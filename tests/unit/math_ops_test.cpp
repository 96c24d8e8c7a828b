// The DSL's f32 math on the CPU path: sqrt correctly rounded (bit for bit
// with the C library's), log, log1p and softplus within a few ulp of the
// exact value (tests/kernels/math_ops_kernel.h); the GPU test checks that the
// GPU gives the same bits.
#include "tests/kernels/math_ops_kernel.h"
#include "tk/runtime/JitCache.h"

#include <gtest/gtest.h>

namespace {

TEST(MathOps, CompileForEveryTarget) {
  for (const tk::compiler::Target &target : tk::compiler::supportedTargets()) {
    tk::runtime::CompiledKernel out;
    tk::runtime::Status s =
        tk::runtime::compileKernel(tk::runtime::factoryOf(tk::test_kernels::buildMathOps), target, out);
    ASSERT_TRUE(s.isOk()) << target.name << ": " << s.message();
    EXPECT_NE(out.ptx.find("sqrt.rn.f32"), std::string::npos) << target.name; // correctly rounded, not approx
    EXPECT_EQ(out.ptx.find("call"), std::string::npos) << target.name;        // no libdevice
  }
}

TEST(MathOps, WithinUlpsOfTheExactValueOnTheCpuPath) {
  using namespace tk::test_kernels;
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  const int64_t m = 256;
  const std::vector<float> x = mathOpInputs(m * 128);
  std::string error;
  const std::vector<float> out = runMathOps(ctx, tk::checks::Placement{}, x, m, error);
  ASSERT_FALSE(out.empty()) << error;
  const int64_t allowed[kMathOps] = {0, 1, 1, 2}; // sqrt exact; log and log1p; softplus (after exp)
  for (int op = 0; op < kMathOps; ++op) {
    int64_t worst = 0;
    float at = 0, got = 0;
    for (int64_t i = 0; i < m * 128; ++i) {
      const float v = out[(i / 128) * 128 * kMathOps + op * 128 + i % 128];
      const int64_t d = ulpDistance(v, mathOpExact(op, x[i]));
      if (d > worst)
        worst = d, at = x[i], got = v;
    }
    EXPECT_LE(worst, allowed[op]) << "op " << op << " at x = " << at << ": " << got << ", exactly "
                                  << mathOpExact(op, at);
    std::printf("[ math ops ] op %d: at most %lld ulp from the exact value\n", op, (long long)worst);
  }
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

TEST(MathOps, RefuseNonF32) {
  mlir::MLIRContext ctx;
  tk::dsl::KernelBuilder k(ctx, "bad", 32);
  tk::dsl::Tensor x = k.input("x", {4, 32}, tk::dsl::DType::I32);
  k.grid({1}, [&](const std::vector<tk::dsl::Index> &) {
    tk::dsl::Tile t = k.load(x, {k.index(0), k.index(0)}, {4, 32});
    using tk::dsl::Scalar;
    EXPECT_THROW(map({t}, tk::dsl::DType::I32, [](const std::vector<Scalar> &v) { return sqrt(v[0]); }),
                 std::invalid_argument);
    EXPECT_THROW(map({t}, tk::dsl::DType::I32, [](const std::vector<Scalar> &v) { return log1p(v[0]); }),
                 std::invalid_argument);
  });
}

} // namespace
