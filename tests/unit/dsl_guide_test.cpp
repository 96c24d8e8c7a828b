// The kernel of docs/dsl.md, built, compiled for a GPU target and run on the
// CPU path against a C++ loop: the guide's code is code that works.
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/JitCache.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace tk;
using namespace tk::dsl;

namespace {

// --- the guide's kernel (docs/dsl.md, "A first kernel") ---
// y = x / s with s = max(|x|) over each row's groups of 128 columns (1 where
// the group is all zero); s is written too. x f32 (M, 1024), M a multiple of 4.
BuiltKernel buildGroupNormalize(mlir::MLIRContext &ctx) {
  KernelBuilder k(ctx, "group_normalize", /*threads=*/128);
  Dim rows = k.dynamic("num_rows", /*multipleOf=*/4);
  Tensor x = k.input("x", {rows, 1024}, DType::F32);
  Tensor y = k.output("y", {rows, 1024}, DType::F32);
  Tensor s = k.output("s", {rows, 8}, DType::F32);
  k.grid({ceil_div(rows, 4)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * 4, col = k.index(0);
    Tile t = k.load(x, {row, col}, {4, 1024});
    Tile amax = reduce_absmax(t, /*dim=*/1, /*group=*/128); // [4, 8]
    Tile scale = map({amax}, DType::F32, [](const std::vector<Scalar> &v) {
      return select(v[0] > v[0].constantF32(0.0), v[0], v[0].constantF32(1.0));
    });
    k.store(s, {row, col}, scale);
    k.store(y, {row, col}, t / expand(scale, /*dim=*/1, /*group=*/128));
  });
  return k.finish();
}
// --- end of the guide's kernel ---

tk_tensor host(void *data, std::vector<int64_t> shape) {
  tk_tensor t{};
  t.data = data;
  t.dtype = TK_F32;
  t.device = TK_DEVICE_CPU;
  t.ndim = (int32_t)shape.size();
  int64_t stride = 1;
  for (int i = t.ndim - 1; i >= 0; --i)
    t.shape[i] = shape[i], t.strides[i] = stride, stride *= shape[i];
  return t;
}

TEST(DslGuide, KernelCompilesForTheGpuAndRunsOnTheCpuPath) {
  runtime::CompiledKernel compiled;
  runtime::Status s = runtime::compileKernel(buildGroupNormalize, *compiler::findTarget("sm_90a"), compiled);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_NE(compiled.ptx.find(".entry group_normalize"), std::string::npos);
  EXPECT_NE(compiled.ptx.find("div.rn.f32"), std::string::npos); // the IEEE division of t / s

  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  const int64_t m = 12;
  std::vector<float> x(m * 1024), y(m * 1024, -1.0f), sc(m * 8, -1.0f);
  for (int64_t i = 0; i < m * 1024; ++i)
    x[i] = std::sin(0.37f * (float)i) * (float)(1 + i % 7);
  std::fill(x.begin() + 3 * 1024 + 256, x.begin() + 3 * 1024 + 384, 0.0f); // an all-zero group
  tk_tensor tx = host(x.data(), {m, 1024}), ty = host(y.data(), {m, 1024}), ts = host(sc.data(), {m, 8});
  s = ctx->run(runtime::factoryOf(buildGroupNormalize), {&tx, &ty, &ts}, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message();
  int wrong = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t q = 0; q < 8; ++q) {
      float amax = 0.0f;
      for (int64_t j = q * 128; j < (q + 1) * 128; ++j)
        amax = std::fmax(amax, std::fabs(x[i * 1024 + j]));
      const float want = amax > 0.0f ? amax : 1.0f;
      wrong += sc[i * 8 + q] != want;
      for (int64_t j = q * 128; j < (q + 1) * 128; ++j)
        wrong += y[i * 1024 + j] != x[i * 1024 + j] / want;
    }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(sc[3 * 8 + 2], 1.0f);

  // The promise on num_rows is checked at launch: 10 rows is not a multiple of 4.
  tx.shape[0] = ty.shape[0] = ts.shape[0] = 10;
  s = ctx->run(runtime::factoryOf(buildGroupNormalize), {&tx, &ty, &ts}, nullptr);
  EXPECT_EQ(s.code(), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("num_rows is 10, which the kernel needs to be a multiple of 4"), std::string::npos)
      << s.message();
  tk_context_destroy(ctx);
}

} // namespace
