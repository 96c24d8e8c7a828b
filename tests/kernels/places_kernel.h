// The kernel of docs/adding_an_op.md's example op (tile.iota), and its
// check on the CPU path or a GPU (tests/unit/iota_test.cpp,
// tests/kernels/iota_gpu_test.cpp).
#pragma once

#include "checks/gpu_session.h"
#include "tests/kernels/run_test_kernel.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"

#include <string>
#include <vector>

namespace tk::test_kernels {

/// For (rows, 128) outputs in blocks of 4 rows: places[r, c] = c + 1000 (r
/// mod 4) as i32 (tile.iota along both dimensions, combined), and
/// rows[r, c] = r mod 4 as i64.
inline dsl::BuiltKernel buildPlaces(mlir::MLIRContext &ctx) {
  using namespace tk::dsl;
  KernelBuilder k(ctx, "places", 64);
  Dim rows = k.dynamic("rows", 4);
  Tensor places = k.output("places", {rows, 128}, DType::I32), inTile = k.output("rows", {rows, 128}, DType::I64);
  k.grid({ceil_div(rows, 4)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * 4;
    Tile col = k.iota({4, 128}, 1), r = k.iota({4, 128}, 0);
    k.store(places, {row, k.index(0)}, map({col, r}, DType::I32, [](const std::vector<Scalar> &v) {
              return v[0] + v[1] * v[0].constantI32(1000);
            }));
    k.store(inTile, {row, k.index(0)}, k.iota({4, 128}, 0, DType::I64));
  });
  return k.finish();
}

/// Runs buildPlaces over `m` rows where `where` puts its outputs; the
/// number of wrong elements, or -1 (and `error`) when the call fails.
inline int64_t checkPlaces(tk_context ctx, checks::Placement where, int64_t m, std::string &error) {
  std::vector<int32_t> places(m * 128, -1);
  std::vector<int64_t> rows(m * 128, -1);
  void *dp = where.poisoned(places.data(), places.size() * 4, 0xFF);
  void *dr = where.poisoned(rows.data(), rows.size() * 8, 0xFF);
  tk_tensor tp = where.tensor(dp, TK_I32, {m, 128}), tr = where.tensor(dr, TK_I64, {m, 128});
  if (!runTestKernel(ctx, runtime::factoryOf(buildPlaces), {&tp, &tr}, error))
    return -1;
  where.get(places.data(), dp, places.size() * 4);
  where.get(rows.data(), dr, rows.size() * 8);
  int64_t wrong = 0;
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < 128; ++c)
      wrong += (places[r * 128 + c] != c + 1000 * (r % 4)) + (rows[r * 128 + c] != r % 4);
  return wrong;
}

} // namespace tk::test_kernels
