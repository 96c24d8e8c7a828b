// A kernel of every integer and comparison scalar op of the DSL
// (dsl/lib/ScalarIntegers.cpp) and its check against C++ on the CPU path or
// a GPU (tests/unit/scalar_ops_test.cpp, tests/kernels/scalar_ops_gpu_test.cpp).
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

constexpr int kScalarOps = 17;

/// out[r, 128 op + c] = op(a, b, x, y)[r, c] as i32, for (rows, 128) inputs
/// a, b (i32, b never 0 nor -1 with a = INT32_MIN) and x, y (f32).
inline dsl::BuiltKernel buildScalarOps(mlir::MLIRContext &ctx) {
  using namespace tk::dsl;
  KernelBuilder k(ctx, "scalar_ops", 128);
  Dim rows = k.dynamic("rows", 4);
  Tensor a = k.input("a", {rows, 128}, DType::I32), b = k.input("b", {rows, 128}, DType::I32);
  Tensor x = k.input("x", {rows, 128}, DType::F32), y = k.input("y", {rows, 128}, DType::F32);
  Tensor out = k.output("out", {rows, 128 * kScalarOps}, DType::I32);
  k.grid({ceil_div(rows, 4)}, [&](const std::vector<Index> &blk) {
    Index row = blk[0] * 4;
    std::vector<Tile> in = {k.load(a, {row, k.index(0)}, {4, 128}), k.load(b, {row, k.index(0)}, {4, 128}),
                            k.load(x, {row, k.index(0)}, {4, 128}), k.load(y, {row, k.index(0)}, {4, 128})};
    for (int op = 0; op < kScalarOps; ++op)
      k.store(out, {row, k.index(128 * op)}, map(in, DType::I32, [op](const std::vector<Scalar> &v) {
                const Scalar &p = v[0], &q = v[1], &f = v[2], &g = v[3];
                Scalar one = p.constantI32(1), zero = p.constantI32(0);
                switch (op) {
                case 0: return select(p == q, one, zero);
                case 1: return select(p != q, one, zero);
                case 2: return select(p <= q, one, zero);
                case 3: return p ^ q;
                case 4: return divs(p, q);
                case 5: return rems(p, q);
                case 6: return floormod(p, q);
                case 7: return popcount(p);
                case 8: return p.signedToF32().bitsAsI32();
                case 9: return f.f32ToI32();
                case 10: return select(f == g, one, zero);
                case 11: return select(f != g, one, zero);
                case 12: return select(!(p < q), one, zero);
                case 13: return mulhiu(p, q);
                case 14: return mulhiu(p.sextToI64(), q.sextToI64()).truncToI32();
                case 15: return shru(p, q & p.constantI32(31));
                default: return (p.sextToI64() * q.sextToI64()).truncToI32();
                }
              }));
  });
  return k.finish();
}

/// The C++ value of op `op` (what buildScalarOps must compute).
inline int32_t scalarOpReference(int op, int32_t p, int32_t q, float f, float g) {
  auto bits = [](float v) {
    int32_t i;
    std::memcpy(&i, &v, 4);
    return i;
  };
  switch (op) {
  case 0: return p == q;
  case 1: return p != q;
  case 2: return p <= q;
  case 3: return p ^ q;
  case 4: return p / q;
  case 5: return p % q;
  case 6: return p % q != 0 && ((p % q < 0) != (q < 0)) ? p % q + q : p % q; // Python's p % q
  case 7: return __builtin_popcount((uint32_t)p);
  case 8: return bits((float)p);
  case 9: return (int32_t)f;
  case 10: return f == g;
  case 11: return f != g;
  case 12: return !(p < q);
  case 13:
    return (int32_t)(uint32_t)(((uint64_t)(uint32_t)p * (uint32_t)q) >> 32);
  case 14:
    return (int32_t)(uint32_t)(uint64_t)(((unsigned __int128)(uint64_t)(int64_t)p * (uint64_t)(int64_t)q) >> 64);
  case 15:
    return (int32_t)((uint32_t)p >> (q & 31));
  default: return (int32_t)(uint32_t)((uint64_t)((int64_t)p * (int64_t)q));
  }
}

/// Runs buildScalarOps over `m` rows (a multiple of 4) of random values with
/// the edge cases mixed in; the number of wrong elements, or -1 (and `error`).
inline int64_t checkScalarOps(tk_context ctx, checks::Placement where, int64_t m, std::string &error) {
  const int64_t n = m * 128;
  std::vector<int32_t> a(n), b(n), out(n * kScalarOps, -1);
  std::vector<float> x(n), y(n);
  std::mt19937 rng(12345);
  const int32_t ints[] = {0, 1, -1, 7, -7, 3, -3, std::numeric_limits<int32_t>::max(),
                          std::numeric_limits<int32_t>::min(), 1 << 24, (1 << 24) + 1, -(1 << 24) - 1};
  const float floats[] = {0.0f, -0.0f, 1.5f, -1.5f, 2.5f, -2.5f, std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::infinity(), 2147483520.0f, -2147483648.0f, 0.999f};
  for (int64_t i = 0; i < n; ++i) {
    a[i] = rng() % 3 ? (int32_t)rng() : ints[rng() % 12];
    b[i] = rng() % 3 ? (int32_t)(rng() % 201) - 100 : ints[rng() % 12];
    if (b[i] == 0 || (b[i] == -1 && a[i] == std::numeric_limits<int32_t>::min()))
      b[i] = 5;
    x[i] = rng() % 3 ? (float)((int32_t)rng() % 100000) / 7.0f : floats[rng() % 11];
    y[i] = rng() % 2 ? x[i] : floats[rng() % 11];
    if (std::isnan(x[i]) || std::isinf(x[i]))
      x[i] = 3.25f; // f32ToI32 has no defined result there; == and != still meet NaN through y
  }
  void *da = where.put(a.data(), n * 4), *db = where.put(b.data(), n * 4);
  void *dx = where.put(x.data(), n * 4), *dy = where.put(y.data(), n * 4);
  void *dout = where.poisoned(out.data(), out.size() * 4, 0xEE);
  tk_tensor ta = where.tensor(da, TK_I32, {m, 128}), tb = where.tensor(db, TK_I32, {m, 128});
  tk_tensor tx = where.tensor(dx, TK_F32, {m, 128}), ty = where.tensor(dy, TK_F32, {m, 128});
  tk_tensor tout = where.tensor(dout, TK_I32, {m, 128 * kScalarOps});
  if (!runTestKernel(ctx, runtime::factoryOf(buildScalarOps), {&ta, &tb, &tx, &ty, &tout}, error))
    return -1;
  where.get(out.data(), dout, out.size() * 4);
  int64_t wrong = 0;
  for (int64_t r = 0; r < m; ++r)
    for (int op = 0; op < kScalarOps; ++op)
      for (int64_t c = 0; c < 128; ++c) {
        const int64_t i = r * 128 + c;
        const int32_t want = scalarOpReference(op, a[i], b[i], x[i], y[i]), got = out[r * 128 * kScalarOps + op * 128 + c];
        if (got != want) {
          if (!wrong)
            error = "op " + std::to_string(op) + " of (" + std::to_string(a[i]) + ", " + std::to_string(b[i]) + ", " +
                    std::to_string(x[i]) + ", " + std::to_string(y[i]) + "): got " + std::to_string(got) +
                    ", want " + std::to_string(want);
          ++wrong;
        }
      }
  return wrong;
}

} // namespace tk::test_kernels
