// A small DSL kernel for the tests of the kernel cache's concurrency
// (tests/unit/concurrent_compile_test.cpp, tests/kernels/prepare_gpu_test.cpp,
// tests/unit/kernel_cache_test.cpp).
#pragma once

#include "tk/dsl/KernelBuilder.h"

#include <string>

namespace tk::test {

/// out = x * factor + 0.5 over (rows, 64) f32: `factor` changes the IR, `tag` the name only.
struct AffineConfig {
  double factor = 3.0;
  std::string tag;
  std::string key() const { return "affine:" + std::to_string(factor) + tag; }
};

/// out = x * factor (+ offset where it is not 0) over (rows, 64) f32, four rows a block.
inline dsl::BuiltKernel buildAffineKernel(mlir::MLIRContext &ctx, double factor, double offset) {
  using namespace tk::dsl;
  KernelBuilder k(ctx, "affine", 64);
  Dim rows = k.dynamic("rows");
  Tensor x = k.input("x", {rows, 64}, DType::F32), out = k.output("out", {rows, 64}, DType::F32);
  k.grid({ceil_div(rows, 4)}, [&](const std::vector<Index> &b) {
    Tile t = k.load(x, {b[0] * 4, k.index(0)}, {4, 64}) * factor;
    k.store(out, {b[0] * 4, k.index(0)}, offset != 0 ? t + offset : t);
  });
  return k.finish();
}

inline dsl::BuiltKernel buildAffine(mlir::MLIRContext &ctx, const AffineConfig &c) {
  return buildAffineKernel(ctx, c.factor, 0.5);
}

} // namespace tk::test
