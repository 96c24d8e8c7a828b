// The op of docs/adding_an_op.md, end to end: tile.iota built by the DSL,
// compiled for every GPU target, and run on the CPU path against the
// obvious reference.
#include "tests/kernels/places_kernel.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

using namespace tk;
using namespace tk::dsl;

namespace {

using test_kernels::buildPlaces;

TEST(Iota, CompilesForEveryTarget) {
  for (const compiler::Target &target : compiler::supportedTargets()) {
    runtime::CompiledKernel out;
    runtime::Status s = runtime::compileKernel(runtime::factoryOf(buildPlaces), target, out);
    ASSERT_TRUE(s.isOk()) << target.name << ": " << s.message();
    EXPECT_NE(out.ptx.find(".entry places"), std::string::npos);
  }
}

TEST(Iota, RunsOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  std::string error;
  EXPECT_EQ(test_kernels::checkPlaces(ctx, checks::Placement{}, 12, error), 0) << error;
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

TEST(Iota, RefusesAForeignDimension) {
  mlir::MLIRContext ctx;
  KernelBuilder k(ctx, "bad", 32);
  k.grid({1}, [&](const std::vector<Index> &) {
    EXPECT_THROW(k.iota({4, 8}, 2), std::invalid_argument);
    EXPECT_THROW(k.iota({4, 8}, 0, DType::F32), std::invalid_argument);
  });
}

} // namespace
