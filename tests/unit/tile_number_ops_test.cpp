// Tiles with numbers on either side of + - * /, and min, max, abs, clamp:
// built by the DSL, run on the CPU path against C++ (the same IEEE
// operations, one each), and the types a number cannot take refused.
#include "checks/gpu_session.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/KernelFactory.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

using namespace tk::dsl;

constexpr int64_t kRows = 8, kCols = 64, kOutputs = 7;

BuiltKernel buildNumberOps(mlir::MLIRContext &ctx) {
  KernelBuilder k(ctx, "number_ops", 64);
  Tensor x = k.input("x", {kRows, kCols}, DType::F32), y = k.input("y", {kRows, kCols}, DType::F32);
  Tensor n = k.input("n", {kRows, kCols}, DType::I32);
  Tensor f = k.output("f", {kOutputs * kRows, kCols}, DType::F32); // output j in rows [j R, (j + 1) R)
  Tensor i = k.output("i", {2 * kRows, kCols}, DType::I32);
  k.grid({1}, [&](const std::vector<Index> &) {
    Index o = k.index(0);
    Tile a = k.load(x, {o, o}, {kRows, kCols}), b = k.load(y, {o, o}, {kRows, kCols});
    Tile m = k.load(n, {o, o}, {kRows, kCols});
    const Tile outs[kOutputs] = {3.0 - a, 2.0 / a, a / 4.0, clamp(a, -0.5, 0.5), abs(a), max(a, b), min(a, 0.25)};
    for (int64_t j = 0; j < kOutputs; ++j)
      k.store(f, {k.index(j * kRows), o}, outs[j]);
    k.store(i, {o, o}, 7.0 - m);
    k.store(i, {k.index(kRows), o}, clamp(m, -3, 3));
  });
  return k.finish();
}

TEST(TileNumberOps, MatchCOnTheCpuPath) {
  std::vector<float> x(kRows * kCols), y(x.size()), f(kOutputs * x.size(), -1.0f);
  std::vector<int32_t> n(x.size()), i(2 * x.size(), -1);
  for (size_t j = 0; j < x.size(); ++j) {
    x[j] = std::sin((float)j) * 2.0f + (j % 7 == 0 ? 0.0f : 0.01f);
    y[j] = std::cos((float)j);
    n[j] = (int32_t)(j % 13) - 6;
  }
  x[5] = 1.0f; // a non-zero divisor everywhere: sin(j) * 2 + 0.01 for j % 7 != 0, and j = 0 below
  x[0] = 0.5f;
  auto host = [](void *data, tk_dtype dtype, std::vector<int64_t> shape) {
    return tk::checks::Placement{}.tensor(data, dtype, std::move(shape));
  };
  tk_tensor tx = host(x.data(), TK_F32, {kRows, kCols}), ty = host(y.data(), TK_F32, {kRows, kCols}),
            tn = host(n.data(), TK_I32, {kRows, kCols}), tf = host(f.data(), TK_F32, {kOutputs * kRows, kCols}),
            ti = host(i.data(), TK_I32, {2 * kRows, kCols});
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::runtime::Status s = ctx->run(tk::runtime::factoryOf(buildNumberOps), {&tx, &ty, &tn, &tf, &ti}, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message();
  const size_t e = x.size();
  for (size_t j = 0; j < e; ++j) {
    const float want[kOutputs] = {
        3.0f - x[j],     2.0f / x[j],          x[j] / 4.0f,          std::min(std::max(x[j], -0.5f), 0.5f),
        std::fabs(x[j]), std::max(x[j], y[j]), std::min(x[j], 0.25f)};
    for (int64_t o = 0; o < kOutputs; ++o)
      EXPECT_EQ(std::memcmp(&f[o * e + j], &want[o], 4), 0)
          << "output " << o << " element " << j << ": " << f[o * e + j] << " vs " << want[o];
    EXPECT_EQ(i[j], 7 - n[j]) << j;
    EXPECT_EQ(i[e + j], std::min(std::max(n[j], -3), 3)) << j;
  }
  tk_context_destroy(ctx);
}

TEST(TileNumberOps, RefuseWhatANumberCannotBe) {
  mlir::MLIRContext ctx;
  ctx.loadAllAvailableDialects();
  KernelBuilder k(ctx, "bad_numbers", 32);
  Tensor x = k.input("x", {4, 32}, DType::BF16), n = k.input("n", {4, 32}, DType::I32);
  k.grid({1}, [&](const std::vector<Index> &) {
    Tile h = k.load(x, {k.index(0), k.index(0)}, {4, 32}), m = k.load(n, {k.index(0), k.index(0)}, {4, 32});
    EXPECT_THROW(h + 1.0, std::invalid_argument); // bf16: convert first
    EXPECT_THROW(m * 0.5, std::invalid_argument); // an i32 tile and a fraction
    EXPECT_THROW(clamp(m, 3, -3), std::invalid_argument);
  });
}

} // namespace
