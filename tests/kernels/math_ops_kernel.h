// A kernel of the DSL's f32 math (sqrt, log, log1p, softplus) and its checks
// (tests/unit/math_ops_test.cpp on the CPU path, tests/kernels/
// math_ops_gpu_test.cpp on a GPU against the CPU path's bits).
#pragma once

#include "checks/gpu_session.h"
#include "tests/kernels/run_test_kernel.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tk::test_kernels {

constexpr int kMathOps = 4;

/// out[r, 128 op + c] = op(x[r, c]): sqrt |x|, log |x|, log1p(x), softplus(x).
inline dsl::BuiltKernel buildMathOps(mlir::MLIRContext &ctx) {
  using namespace tk::dsl;
  KernelBuilder k(ctx, "math_ops", 128);
  Dim rows = k.dynamic("rows", 4);
  Tensor x = k.input("x", {rows, 128}, DType::F32);
  Tensor out = k.output("out", {rows, 128 * kMathOps}, DType::F32);
  k.grid({ceil_div(rows, 4)}, [&](const std::vector<Index> &blk) {
    Index row = blk[0] * 4;
    Tile t = k.load(x, {row, k.index(0)}, {4, 128});
    for (int op = 0; op < kMathOps; ++op)
      k.store(out, {row, k.index(128 * op)}, map({t}, DType::F32, [op](const std::vector<Scalar> &v) {
                switch (op) {
                case 0:
                  return sqrt(abs(v[0]));
                case 1:
                  return log(abs(v[0]));
                case 2:
                  return log1p(v[0]);
                default:
                  return softplus(v[0]);
                }
              }));
  });
  return k.finish();
}

/// The exact value of op at x (in double, then rounded once to f32).
inline float mathOpExact(int op, float x) {
  const double d = x;
  switch (op) {
  case 0:
    return (float)std::sqrt(std::fabs(d));
  case 1:
    return (float)std::log(std::fabs(d));
  case 2:
    return (float)std::log1p(d);
  default:
    return x > 20.0f ? x : (float)std::log1p(std::exp(d));
  }
}

/// Distance in representable f32 values (0: the same bits or both NaN).
inline int64_t ulpDistance(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<int32_t>::max();
  auto ordered = [](float v) {
    int32_t i;
    std::memcpy(&i, &v, 4);
    return i < 0 ? (int64_t)INT32_MIN - i : (int64_t)i;
  };
  return std::llabs(ordered(a) - ordered(b));
}

/// Inputs: random magnitudes over the f32 range and the edges (signed zeros,
/// denormals, the softplus threshold, infinities, NaN).
inline std::vector<float> mathOpInputs(int64_t n) {
  std::vector<float> x(n);
  std::mt19937 rng(4242);
  const float edges[] = {0.0f,
                         -0.0f,
                         1.0f,
                         -1.0f,
                         1e-45f,
                         1e-38f,
                         20.0f,
                         20.000002f,
                         19.999998f,
                         -20.0f,
                         88.7f,
                         -103.0f,
                         1e-7f,
                         -1e-7f,
                         0.5f,
                         -0.5f,
                         3e38f,
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN()};
  for (float &v : x) {
    if (rng() % 8 == 0) {
      v = edges[rng() % 20];
    } else {
      const float m = std::ldexp(1.0f + (float)(rng() % (1 << 23)) / (1 << 23), (int)(rng() % 60) - 30);
      v = rng() % 2 ? m : -m;
    }
  }
  return x;
}

/// Runs buildMathOps over `m` rows (a multiple of 4) where `where` places
/// them; the results (m, 128 kMathOps), or empty (and `error`).
inline std::vector<float> runMathOps(tk_context ctx, checks::Placement where, const std::vector<float> &x, int64_t m,
                                     std::string &error) {
  std::vector<float> out(m * 128 * kMathOps);
  void *dx = where.put(x.data(), x.size() * 4), *dout = where.poisoned(out.data(), out.size() * 4, 0xEE);
  tk_tensor tx = where.tensor(dx, TK_F32, {m, 128}), tout = where.tensor(dout, TK_F32, {m, 128 * kMathOps});
  if (!runTestKernel(ctx, runtime::factoryOf(buildMathOps), {&tx, &tout}, error))
    return {};
  where.get(out.data(), dout, out.size() * 4);
  return out;
}

} // namespace tk::test_kernels
