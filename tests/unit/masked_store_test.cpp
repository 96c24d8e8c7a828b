// KernelBuilder::storeWhere (tile.store with a mask): only the elements whose
// mask is nonzero are written, the others keep what the output held. A
// blocked tile (the positive elements of x) and a reduced one (each row's
// maximum, where positive), run on the CPU path against C++ over a row count
// that is not a multiple of the block's, and compiled for every target; the
// masks that cannot be are refused.
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
#include <string>
#include <vector>

namespace {

using namespace tk::dsl;

constexpr int64_t kCols = 64, kRowsPerBlock = 4;
constexpr float kUntouched = -7.0f;

Tile positive(const Tile &t) {
  return map({t}, DType::I32, [](const std::vector<Scalar> &v) {
    return select(v[0] > v[0].constantF32(0), v[0].constantI32(1), v[0].constantI32(0));
  });
}

BuiltKernel buildKeepPositive(mlir::MLIRContext &ctx) {
  KernelBuilder k(ctx, "keep_positive", 64);
  Dim rows = k.dynamic("rows");
  Tensor x = k.input("x", {rows, kCols}, DType::F32);
  Tensor y = k.output("y", {rows, kCols}, DType::F32);
  Tensor top = k.output("top", {rows, 1}, DType::F32);
  k.grid({ceil_div(rows, kRowsPerBlock)}, [&](const std::vector<Index> &b) {
    Index r = b[0] * kRowsPerBlock, zero = k.index(0);
    Tile t = k.load(x, {r, zero}, {kRowsPerBlock, kCols});
    k.storeWhere(y, {r, zero}, t, positive(t));
    Tile mx = reduce_max(t, 1);
    k.storeWhere(top, {r, zero}, mx, positive(mx));
  });
  return k.finish();
}

tk_tensor host(void *data, tk_dtype dtype, std::vector<int64_t> shape) {
  return tk::checks::Placement{}.tensor(data, dtype, std::move(shape));
}

TEST(MaskedStore, WritesOnlyWhereTheMaskIsSetOnTheCpuPath) {
  const int64_t rows = 10; // not a multiple of the block's 4 rows
  std::vector<float> x(rows * kCols), y(rows * kCols, kUntouched), top(rows, kUntouched);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(0.7f * (float)i);
  for (int64_t j = 0; j < kCols; ++j) // row 3 has no positive element
    x[3 * kCols + j] = -1.0f - (float)j;
  tk_tensor xt = host(x.data(), TK_F32, {rows, kCols}), yt = host(y.data(), TK_F32, {rows, kCols}),
            tt = host(top.data(), TK_F32, {rows, 1});
  tk_context ctx = nullptr;
  ASSERT_EQ(tk_context_create(&ctx), TK_SUCCESS);
  tk::runtime::Status s = ctx->run(tk::runtime::factoryOf(buildKeepPositive), {&xt, &yt, &tt}, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message();
  int64_t written = 0;
  for (int64_t r = 0; r < rows; ++r) {
    float mx = x[r * kCols];
    for (int64_t j = 0; j < kCols; ++j) {
      float v = x[r * kCols + j], want = v > 0 ? v : kUntouched;
      written += v > 0;
      mx = std::max(mx, v);
      ASSERT_EQ(std::memcmp(&y[r * kCols + j], &want, 4), 0) << r << ", " << j;
    }
    float want = mx > 0 ? mx : kUntouched;
    ASSERT_EQ(std::memcmp(&top[r], &want, 4), 0) << "row " << r;
  }
  EXPECT_GT(written, 0);
  EXPECT_LT(written, rows * kCols);
  EXPECT_EQ(top[3], kUntouched);
  tk_context_destroy(ctx);
}

TEST(MaskedStore, CompilesForEveryTargetAsScalarStores) {
  for (const tk::compiler::Target &target : tk::compiler::supportedTargets()) {
    tk::runtime::CompiledKernel out;
    tk::runtime::Status s = tk::runtime::compileKernel(tk::runtime::factoryOf(buildKeepPositive), target, out);
    ASSERT_TRUE(s.isOk()) << target.name << ": " << s.message();
    EXPECT_NE(out.ptx.find(".entry keep_positive"), std::string::npos) << target.name;
    // Element by element: no vector store of y's 16-byte chunks.
    EXPECT_EQ(out.ptx.find("st.global.v"), std::string::npos) << target.name;
  }
}

TEST(MaskedStore, RefusesAFloatOrMisshapenMask) {
  mlir::MLIRContext ctx;
  ctx.loadAllAvailableDialects();
  KernelBuilder k(ctx, "bad_mask", 64);
  Tensor x = k.input("x", {8, kCols}, DType::F32);
  Tensor y = k.output("y", {8, kCols}, DType::F32);
  k.grid({1}, [&](const std::vector<Index> &) {
    Index zero = k.index(0);
    Tile t = k.load(x, {zero, zero}, {4, kCols});
    try {
      k.storeWhere(y, {zero, zero}, t, t);
      ADD_FAILURE() << "a float mask was accepted";
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find("kernel 'bad_mask': storeWhere into 'y': the mask holds integers "
                                           "(nonzero: write), got f32"),
                std::string::npos)
          << e.what();
    }
    try {
      k.storeWhere(y, {zero, zero}, t, positive(k.load(x, {zero, zero}, {2, kCols})));
      ADD_FAILURE() << "a [2, 64] mask of a [4, 64] tile was accepted";
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find("the mask is [2, 64] but the value tile is [4, 64]"), std::string::npos)
          << e.what();
    }
  });
}

} // namespace
