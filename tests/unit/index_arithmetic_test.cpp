// Block-uniform index arithmetic of the DSL (`Index`: + - * / %): a kernel
// that reads its rows from the far end (rows - 1 - b) and from b % 3,
// compiled for every GPU target and run on the CPU path.
#include "checks/gpu_session.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/JitCache.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <vector>

using namespace tk;
using namespace tk::dsl;

namespace {

/// reversed[b] = x[rows - 1 - b], cycled[b] = x[b % 3], for (rows, 32) f32.
BuiltKernel buildIndexArithmetic(mlir::MLIRContext &ctx) {
  KernelBuilder k(ctx, "index_arithmetic", 32);
  Dim rows = k.dynamic("rows");
  Tensor x = k.input("x", {rows, 32}, DType::F32);
  Tensor reversed = k.output("reversed", {rows, 32}, DType::F32), cycled = k.output("cycled", {rows, 32}, DType::F32);
  k.grid({rows}, [&](const std::vector<Index> &b) {
    Index zero = k.index(0), last = k.index(rows) - 1;
    k.store(reversed, {b[0], zero}, k.load(x, {last - b[0], zero}, {1, 32}));
    k.store(cycled, {b[0], zero}, k.load(x, {b[0] % 3, zero}, {1, 32}));
  });
  return k.finish();
}

TEST(IndexArithmetic, CompilesForEveryTarget) {
  for (const compiler::Target &target : compiler::supportedTargets()) {
    runtime::CompiledKernel out;
    runtime::Status s = runtime::compileKernel(runtime::factoryOf(buildIndexArithmetic), target, out);
    ASSERT_TRUE(s.isOk()) << target.name << ": " << s.message();
    EXPECT_NE(out.ptx.find(".entry index_arithmetic"), std::string::npos) << target.name;
  }
}

TEST(IndexArithmetic, DifferencesAndRemaindersAddressRowsOnTheCpuPath) {
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  for (int64_t m : {1, 5, 7}) {
    std::vector<float> x(m * 32), reversed(m * 32, -1.0f), cycled(m * 32, -1.0f);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i);
    checks::Placement host{};
    tk_tensor tx = host.tensor(x.data(), TK_F32, {m, 32}), tr = host.tensor(reversed.data(), TK_F32, {m, 32}),
              tc = host.tensor(cycled.data(), TK_F32, {m, 32});
    runtime::Status s = ctx->run(runtime::factoryOf(buildIndexArithmetic), {&tx, &tr, &tc}, nullptr);
    ASSERT_TRUE(s.isOk()) << s.message();
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < 32; ++c) {
        EXPECT_EQ(reversed[r * 32 + c], x[(m - 1 - r) * 32 + c]) << m << " rows, row " << r;
        EXPECT_EQ(cycled[r * 32 + c], x[(r % 3) * 32 + c]) << m << " rows, row " << r;
      }
  }
  EXPECT_EQ(tk_context_destroy(ctx), TK_SUCCESS);
}

TEST(IndexArithmetic, ANonPositiveDivisorIsAnError) {
  mlir::MLIRContext ctx;
  KernelBuilder k(ctx, "bad_divisor", 32);
  k.grid({4}, [&](const std::vector<Index> &b) {
    EXPECT_THROW(b[0] / 0, std::invalid_argument);
    EXPECT_THROW(b[0] % 0, std::invalid_argument);
    EXPECT_THROW(b[0] % -3, std::invalid_argument);
  });
}

} // namespace
