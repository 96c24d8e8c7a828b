// A kernel of tile.dot over blocks of rows (y = x w, x [rows, K], w [K, N]
// or, `transposed`, y = x transpose(w) with w [N, K]), either one product
// over K or, with `chunk`, one per chunk of K carried in an accumulator,
// its reference and its check on the CPU path or a GPU
// (tests/unit/dot_test.cpp, tests/kernels/dot_gpu_test.cpp).
#pragma once

#include "checks/bf16.h"
#include "checks/gpu_session.h"
#include "tests/kernels/run_test_kernel.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace tk::test_kernels {

struct DotTestConfig {
  dsl::DType a = dsl::DType::BF16, b = dsl::DType::F32; ///< x's and w's elements (f32 or bf16)
  int64_t k = 64, n = 24;
  bool transposed = false; ///< w given as [N, K]: dot(x, transpose(w)), tile.dot {rhs_transposed}
  /// K in chunks of this many columns (0: one product), each after the
  /// first added to the one before by dot(x, w, acc).
  int64_t chunk = 0;
  /// Rows per block: 16 per warp fit mma.sync's register fragments (64 of
  /// 128 threads), so dot(x, w, acc) runs from registers; 32 of 128 stage.
  int64_t blockRows = 32;
  /// Threads per block: 32 (one warp) loads a transposed w as the tensor core's b registers.
  int64_t threads = 128;
  /// dot(x, w, acc, DotEngine::Warpgroup): wgmma on sm_90a (tile.dot {warpgroup}).
  bool warpgroup = false;
  std::string key() const {
    return std::string("dot_test:") + dsl::name(a) + "x" + dsl::name(b) + ",K=" + std::to_string(k) +
           ",N=" + std::to_string(n) + (transposed ? ",T" : "") + ",chunk=" + std::to_string(chunk) +
           ",rows=" + std::to_string(blockRows) + (threads != 128 ? ",threads=" + std::to_string(threads) : "") +
           (warpgroup ? ",wg" : "");
  }
};

inline dsl::BuiltKernel buildDotTest(mlir::MLIRContext &ctx, const DotTestConfig &c) {
  using namespace tk::dsl;
  KernelBuilder k(ctx, "dot_test", c.threads);
  Dim rows = k.dynamic("rows");
  std::vector<int64_t> wShape = c.transposed ? std::vector<int64_t>{c.n, c.k} : std::vector<int64_t>{c.k, c.n};
  Tensor x = k.input("x", {rows, c.k}, c.a), w = k.input("w", {wShape[0], wShape[1]}, c.b);
  Tensor y = k.output("y", {rows, c.n}, DType::F32);
  const int64_t chunk = c.chunk ? c.chunk : c.k;
  k.grid({ceil_div(rows, c.blockRows)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * c.blockRows;
    std::vector<Tile> acc;
    if (c.warpgroup) // every chunk's product on warpgroups, from zero
      acc.push_back(k.full({c.blockRows, c.n}, 0.0));
    for (int64_t k0 = 0; k0 < c.k; k0 += chunk) {
      Tile xt = k.load(x, {row, k.index(k0)}, {c.blockRows, chunk});
      Tile wt = c.transposed ? transpose(k.load(w, {k.index(0), k.index(k0)}, {c.n, chunk}))
                             : k.load(w, {k.index(k0), k.index(0)}, {chunk, c.n});
      acc.push_back(acc.empty()   ? dot(xt, wt)
                    : c.warpgroup ? dot(xt, wt, acc.back(), DotEngine::Warpgroup)
                                  : dot(xt, wt, acc.back()));
    }
    k.store(y, {row, k.index(0)}, acc.back());
  });
  return k.finish();
}

/// The spec's tf32r: (bits + 0x1000) & ~0x1FFF.
inline float tf32Rounded(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u = (u + 0x1000u) & ~0x1FFFu;
  std::memcpy(&v, &u, 4);
  return v;
}

/// Random operands (bf16 bits or f32), as the kernel reads them.
struct DotOperand {
  dsl::DType type;
  std::vector<uint16_t> bf16;
  std::vector<float> f32;
  DotOperand(dsl::DType type, size_t count, std::mt19937 &rng) : type(type) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (size_t i = 0; i < count; ++i)
      type == dsl::DType::BF16 ? bf16.push_back(checks::bf16Bits(normal(rng))) : f32.push_back(normal(rng));
  }
  /// The value the product uses: bf16 exactly, f32 rounded to TF32.
  float value(size_t i) const { return type == dsl::DType::BF16 ? checks::bf16Value(bf16[i]) : tf32Rounded(f32[i]); }
  const void *data() const { return type == dsl::DType::BF16 ? (const void *)bf16.data() : (const void *)f32.data(); }
  size_t bytes() const { return type == dsl::DType::BF16 ? bf16.size() * 2 : f32.size() * 4; }
  tk_dtype dtype() const { return type == dsl::DType::BF16 ? TK_BF16 : TK_F32; }
};

/// Runs buildDotTest over `rows` rows where `where` puts its tensors. The
/// reference adds the (exact) products in order of k; the CPU path must
/// match it bit for bit (`tolerance` 0), a GPU within `tolerance` times the
/// sum of the products' magnitudes (the tensor core's own order). Returns
/// the number of elements outside that, or -1 (and `error`) when the call fails.
inline int64_t checkDot(tk_context ctx, checks::Placement where, const DotTestConfig &c, int64_t rows,
                        double tolerance, std::string &error, unsigned seed = 1) {
  std::mt19937 rng(seed);
  DotOperand x(c.a, rows * c.k, rng), w(c.b, c.k * c.n, rng);
  std::vector<float> y(rows * c.n, -1.0f);
  void *dx = where.put(x.data(), x.bytes()), *dw = where.put(w.data(), w.bytes());
  void *dy = where.poisoned(y.data(), y.size() * 4, 0xFF);
  tk_tensor tx = where.tensor(dx, x.dtype(), {rows, c.k}),
            tw = where.tensor(dw, w.dtype(), {c.transposed ? c.n : c.k, c.transposed ? c.k : c.n}),
            ty = where.tensor(dy, TK_F32, {rows, c.n});
  if (!runTestKernel(ctx, runtime::factoryOf(buildDotTest, c), {&tx, &tw, &ty}, error))
    return -1;
  where.get(y.data(), dy, y.size() * 4);
  int64_t wrong = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < c.n; ++j) {
      float acc = 0.0f;
      double magnitude = 0.0;
      for (int64_t k = 0; k < c.k; ++k) {
        const float p = x.value(r * c.k + k) * w.value(c.transposed ? j * c.k + k : k * c.n + j);
        acc = acc + p;
        magnitude += std::fabs((double)p);
      }
      const float got = y[r * c.n + j];
      const bool ok = tolerance == 0 ? std::memcmp(&got, &acc, 4) == 0
                                     : std::fabs((double)got - acc) <= tolerance * magnitude;
      if (!ok && wrong++ == 0)
        error = "y[" + std::to_string(r) + ", " + std::to_string(j) + "] = " + std::to_string(got) + ", expected " +
                std::to_string(acc);
    }
  return wrong;
}

} // namespace tk::test_kernels
