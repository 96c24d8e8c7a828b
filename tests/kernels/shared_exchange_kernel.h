// Fragments stored to shared memory and read back in another layout, with
// more shared memory than a kernel may declare statically (48 KB): the
// compiler places the buffers in dynamic shared memory and the runtime
// raises the kernel's limit. Checked on the CPU path or a GPU
// (tests/unit/shared_exchange_test.cpp, tests/kernels/shared_exchange_gpu_test.cpp).
#pragma once

#include "checks/bf16.h"
#include "checks/gpu_session.h"
#include "tests/kernels/run_test_kernel.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"

#include <string>
#include <vector>

namespace tk::test_kernels {

constexpr int64_t kExchangeRows = 128, kExchangeCols = 256, kExchangeHead = 8;

/// `extraRows` (0, or at least 64) more f32 rows of 256 in a third shared
/// buffer, zeros added to y's lower half, size the kernel's shared memory
/// for the limit tests.
struct SharedExchangeConfig {
  int64_t extraRows = 0;
  std::string key() const { return "extra=" + std::to_string(extraRows); }
};

/// Per 128 rows of x [rows, 256] f32: y holds the block's rows rotated by
/// half a block, doubled (y[r] = 2 x[(r + 64) mod 128]), read back from a
/// 128 KB shared buffer in other tiles than were written; z [rows / 16, 256]
/// holds the block's first 8 rows rounded to bf16 through a second shared
/// buffer (offset past the first).
inline dsl::BuiltKernel buildSharedExchange(mlir::MLIRContext &ctx, const SharedExchangeConfig &c) {
  using namespace tk::dsl;
  KernelBuilder k(ctx, "shared_exchange", 256);
  Dim rows = k.dynamic("rows", kExchangeRows);
  Tensor x = k.input("x", {rows, kExchangeCols}, DType::F32);
  Tensor y = k.output("y", {rows, kExchangeCols}, DType::F32);
  Tensor z = k.output("z", {ceil_div(rows, kExchangeRows / kExchangeHead), kExchangeCols}, DType::F32);
  k.grid({ceil_div(rows, kExchangeRows)}, [&](const std::vector<Index> &blk) {
    Index row = blk[0] * kExchangeRows;
    const int64_t half = kExchangeRows / 2;
    Shared big = k.shared({kExchangeRows, kExchangeCols}, DType::F32);
    Shared head = k.shared({kExchangeHead, kExchangeCols}, DType::BF16);
    Tile t = k.load(x, {row, k.index(0)}, {kExchangeRows, kExchangeCols});
    k.store(big, {k.index(0), k.index(0)}, t * 2.0);
    k.store(head, {k.index(0), k.index(0)}, k.load(x, {row, k.index(0)}, {kExchangeHead, kExchangeCols}).to(DType::BF16));
    k.barrier();
    Tile upper = k.load(big, {k.index(half), k.index(0)}, {half, kExchangeCols});
    Tile lower = k.load(big, {k.index(0), k.index(0)}, {half, kExchangeCols});
    k.store(y, {row, k.index(0)}, upper);
    if (c.extraRows) {
      Shared more = k.shared({c.extraRows, kExchangeCols}, DType::F32);
      k.store(more, {k.index(0), k.index(0)}, k.full({c.extraRows, kExchangeCols}, 0.0));
      k.barrier();
      lower = lower + k.load(more, {k.index(0), k.index(0)}, {half, kExchangeCols});
    }
    k.store(y, {row + half, k.index(0)}, lower);
    k.store(z, {blk[0] * kExchangeHead, k.index(0)},
            k.load(head, {k.index(0), k.index(0)}, {kExchangeHead, kExchangeCols}).to(DType::F32));
  });
  return k.finish();
}

/// Runs buildSharedExchange on x [m, 256] where `where` puts it; the number
/// of wrong elements of y and z, or -1 (and `error`) when the call fails.
inline int64_t checkSharedExchange(tk_context ctx, checks::Placement where, int64_t m, std::string &error,
                                   const SharedExchangeConfig &config = {}) {
  const int64_t n = kExchangeCols, zm = m / (kExchangeRows / kExchangeHead);
  std::vector<float> x(m * n), y(m * n), z(zm * n);
  for (int64_t i = 0; i < m * n; ++i)
    x[i] = float(i % 1021) * 0.001953125f + float(i / 1021) * 1.0009765625f;
  void *dx = where.put(x.data(), x.size() * 4);
  void *dy = where.poisoned(y.data(), y.size() * 4, 0xFF), *dz = where.poisoned(z.data(), z.size() * 4, 0xFF);
  tk_tensor tx = where.tensor(dx, TK_F32, {m, n}), ty = where.tensor(dy, TK_F32, {m, n}),
            tz = where.tensor(dz, TK_F32, {zm, n});
  if (!runTestKernel(ctx, runtime::factoryOf(buildSharedExchange, config), {&tx, &ty, &tz}, error))
    return -1;
  where.get(y.data(), dy, y.size() * 4);
  where.get(z.data(), dz, z.size() * 4);
  int64_t wrong = 0;
  auto expect = [&](float got, float want, const std::string &what) {
    if (got == want)
      return;
    if (!wrong)
      error = what + ": " + std::to_string(got) + " instead of " + std::to_string(want);
    ++wrong;
  };
  for (int64_t r = 0; r < m; ++r) {
    int64_t base = r / kExchangeRows * kExchangeRows, src = base + (r - base + kExchangeRows / 2) % kExchangeRows;
    for (int64_t c = 0; c < n; ++c)
      expect(y[r * n + c], 2.0f * x[src * n + c], "y[" + std::to_string(r) + ", " + std::to_string(c) + "]");
  }
  for (int64_t r = 0; r < zm; ++r) {
    int64_t src = r / kExchangeHead * kExchangeRows + r % kExchangeHead;
    for (int64_t c = 0; c < n; ++c)
      expect(z[r * n + c], checks::bf16Value(checks::bf16Bits(x[src * n + c])), "z[" + std::to_string(r) + ", " + std::to_string(c) + "]");
  }
  return wrong;
}

} // namespace tk::test_kernels
