// Tiles of one rank broadcast where a size is 1, and a kernel's [1, H] row
// parameter takes a 1-D [H] tensor: out = x * w + c for x [R, H], a weight
// row w [1, H] (given 1-D or 2-D) and a column c [R, 1]. Run on the CPU path
// against C++, compiled for every target, and the shapes that cannot
// broadcast refused with both shapes named.
#include "checks/gpu_session.h"
#include "tk/compiler/Target/Targets.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/JitCache.h"
#include "tk/runtime/KernelFactory.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

using namespace tk::dsl;

constexpr int64_t kCols = 64, kRowsPerBlock = 4;

BuiltKernel buildScaleShift(mlir::MLIRContext &ctx) {
  KernelBuilder k(ctx, "scale_shift", 64);
  Dim rows = k.dynamic("rows");
  Tensor x = k.input("x", {rows, kCols}, DType::F32);
  Tensor w = k.input("w", {1, kCols}, DType::F32);
  Tensor c = k.input("c", {rows, 1}, DType::F32);
  Tensor y = k.output("y", {rows, kCols}, DType::F32);
  k.grid({ceil_div(rows, kRowsPerBlock)}, [&](const std::vector<Index> &b) {
    Index r = b[0] * kRowsPerBlock, zero = k.index(0);
    Tile xt = k.load(x, {r, zero}, {kRowsPerBlock, kCols});
    Tile wt = k.load(w, {zero, zero}, {1, kCols});
    Tile ct = k.load(c, {r, zero}, {kRowsPerBlock, 1});
    k.store(y, {r, zero}, xt * wt + ct);
  });
  return k.finish();
}

struct Data {
  int64_t rows = 10; // not a multiple of the block's 4 rows
  std::vector<float> x, w, c, y;
  Data() : x(rows * kCols), w(kCols), c(rows), y(rows * kCols, -1.0f) {
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = std::sin((float)i);
    for (int64_t j = 0; j < kCols; ++j)
      w[j] = 0.5f + 0.01f * (float)j;
    for (int64_t r = 0; r < rows; ++r)
      c[r] = (float)r - 3.0f;
  }
  void expectComputed() const {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < kCols; ++j) {
        float want = x[r * kCols + j] * w[j] + c[r];
        ASSERT_EQ(std::memcmp(&y[r * kCols + j], &want, 4), 0) << r << ", " << j;
      }
  }
};

tk_tensor host(void *data, tk_dtype dtype, std::vector<int64_t> shape) {
  return tk::checks::Placement{}.tensor(data, dtype, std::move(shape));
}

TEST(Broadcast, RowAndColumnOnTheCpuPathWithA1DWeight) {
  Data d;
  tk_tensor x = host(d.x.data(), TK_F32, {d.rows, kCols}), w = host(d.w.data(), TK_F32, {kCols}),
            c = host(d.c.data(), TK_F32, {d.rows, 1}), y = host(d.y.data(), TK_F32, {d.rows, kCols});
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::runtime::Status s = ctx->run(tk::runtime::factoryOf(buildScaleShift), {&x, &w, &c, &y}, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message();
  d.expectComputed();
  // The same weight as the parameter's own [1, H].
  Data d2;
  tk_tensor x2 = host(d2.x.data(), TK_F32, {d2.rows, kCols}), w2 = host(d2.w.data(), TK_F32, {1, kCols}),
            c2 = host(d2.c.data(), TK_F32, {d2.rows, 1}), y2 = host(d2.y.data(), TK_F32, {d2.rows, kCols});
  s = ctx->run(tk::runtime::factoryOf(buildScaleShift), {&x2, &w2, &c2, &y2}, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message();
  d2.expectComputed();
  tk_context_destroy(ctx);
}

TEST(Broadcast, A1DTensorStandsOnlyForLeadingStaticOnes) {
  Data d;
  // c is [rows, 1]: its leading dimension is not a static 1, so a 1-D c is refused.
  tk_tensor x = host(d.x.data(), TK_F32, {d.rows, kCols}), w = host(d.w.data(), TK_F32, {kCols}),
            c = host(d.c.data(), TK_F32, {d.rows}), y = host(d.y.data(), TK_F32, {d.rows, kCols});
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::runtime::Status s = ctx->run(tk::runtime::factoryOf(buildScaleShift), {&x, &w, &c, &y}, nullptr);
  EXPECT_EQ(s.code(), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "scale_shift: tensor 'c' must have 2 dimensions, got 1");
  // A weight of the wrong length is named as the [1, H] parameter's dimension.
  tk_tensor shortW = host(d.w.data(), TK_F32, {kCols - 1});
  tk_tensor c2 = host(d.c.data(), TK_F32, {d.rows, 1});
  s = ctx->run(tk::runtime::factoryOf(buildScaleShift), {&x, &shortW, &c2, &y}, nullptr);
  EXPECT_EQ(s.code(), TK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "scale_shift: tensor 'w' dimension 1 must be 64, got 63");
  for (float v : d.y)
    ASSERT_EQ(v, -1.0f); // nothing written by a refused call
  tk_context_destroy(ctx);
}

TEST(Broadcast, CompilesForEveryTarget) {
  for (const char *name : {"sm_80", "sm_90a", "sm_100a"}) {
    tk::runtime::CompiledKernel out;
    tk::runtime::Status s =
        tk::runtime::compileKernel(tk::runtime::factoryOf(buildScaleShift), *tk::compiler::findTarget(name), out);
    ASSERT_TRUE(s.isOk()) << name << ": " << s.message();
    EXPECT_NE(out.ptx.find(".entry scale_shift"), std::string::npos) << name;
  }
}

TEST(Broadcast, ShapesThatDoNotBroadcastAreNamed) {
  mlir::MLIRContext ctx;
  ctx.loadAllAvailableDialects();
  KernelBuilder k(ctx, "no_broadcast", 64);
  Tensor x = k.input("x", {8, kCols}, DType::F32);
  try {
    k.grid({1}, [&](const std::vector<Index> &) {
      Index zero = k.index(0);
      Tile a = k.load(x, {zero, zero}, {4, kCols}), b = k.load(x, {zero, zero}, {2, 1});
      (void)(a * b);
    });
    ADD_FAILURE() << "a [4, 64] * [2, 1] was accepted";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(), "kernel 'no_broadcast': * of tiles of different shapes, [4, 64] and [2, 1] (tiles of one "
                           "rank broadcast where a size is 1; expand() repeats a reduced tile back to its input's "
                           "shape)");
  }
}

} // namespace
