// The DSL's integer and comparison scalar ops (==, !=, <=, !, ^, signed
// division and remainder, floor-modulo, popcount, int <-> float, i64
// truncation, the high half of unsigned products in 32 and 64 bits, logical
// shifts by a scalar) compiled for every GPU target and run on the CPU path against
// C++ (tests/kernels/scalar_ops_kernel.h).
#include "tests/kernels/scalar_ops_kernel.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

namespace {

TEST(ScalarOps, CompileForEveryTarget) {
  for (const tk::compiler::Target &target : tk::compiler::supportedTargets()) {
    tk::runtime::CompiledKernel out;
    tk::runtime::Status s =
        tk::runtime::compileKernel(tk::runtime::factoryOf(tk::test_kernels::buildScalarOps), target, out);
    ASSERT_TRUE(s.isOk()) << target.name << ": " << s.message();
    EXPECT_NE(out.ptx.find("popc.b32"), std::string::npos) << target.name; // one instruction, not a loop
    EXPECT_NE(out.ptx.find("mul.hi.u32"), std::string::npos) << target.name; // not a widened multiply
    EXPECT_NE(out.ptx.find("mul.hi.u64"), std::string::npos) << target.name;
  }
}

TEST(ScalarOps, MatchCOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::string error;
  EXPECT_EQ(tk::test_kernels::checkScalarOps(ctx, tk::checks::Placement{}, 64, error), 0) << error;
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

TEST(ScalarOps, RefuseWrongTypes) {
  mlir::MLIRContext ctx;
  tk::dsl::KernelBuilder k(ctx, "bad", 32);
  tk::dsl::Tensor x = k.input("x", {4, 32}, tk::dsl::DType::F32);
  k.grid({1}, [&](const std::vector<tk::dsl::Index> &) {
    tk::dsl::Tile t = k.load(x, {k.index(0), k.index(0)}, {4, 32});
    using tk::dsl::Scalar;
    EXPECT_THROW(map({t}, tk::dsl::DType::F32, [](const std::vector<Scalar> &v) { return divs(v[0], v[0]); }),
                 std::invalid_argument);
    EXPECT_THROW(map({t}, tk::dsl::DType::I32, [](const std::vector<Scalar> &v) { return popcount(v[0]); }),
                 std::invalid_argument);
    EXPECT_THROW(map({t}, tk::dsl::DType::I32, [](const std::vector<Scalar> &v) { return v[0].truncToI32(); }),
                 std::invalid_argument);
  });
}

} // namespace
