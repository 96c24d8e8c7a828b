// The kernels of the exhaustive division check (logistic_division_gpu_test):
// x / (1 + exp(-x)) and 1 / (1 + exp(-x)) of an f32 tensor, as two outputs
// (a shared divisor: the branch-free sequence), and x / (1 + exp(-x)) alone
// (the sequence under one range check per thread). compile_test checks that
// they take those forms.
#pragma once

#include "tk/dsl/KernelBuilder.h"

namespace tk::test_kernels {

constexpr int64_t kCols = 1024, kRowsPerBlock = 4;

inline dsl::BuiltKernel logisticKernel(mlir::MLIRContext &ctx, bool siluAlone) {
  using namespace tk::dsl;
  const char *name = siluAlone ? "silu_alone" : "logistic_quotients";
  KernelBuilder k(ctx, name, name, 256);
  Dim rows = k.dynamic("rows", kRowsPerBlock);
  Tensor x = k.input("x", {rows, kCols}, DType::F32, {kCols, 1}, 16);
  Tensor silu = k.output("silu", {rows, kCols}, DType::F32, {}, 16);
  Tensor sigmoid = k.output("sigmoid", {rows, kCols}, DType::F32, {}, 16);
  k.grid({ceil_div(rows, kRowsPerBlock)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * kRowsPerBlock;
    Tile t = k.load(x, {row, k.index(0)}, {kRowsPerBlock, kCols});
    auto quotient = [&](bool ofOne) {
      return map({t}, DType::F32, [ofOne](const std::vector<Scalar> &in) {
        Scalar one = in[0].constantF32(1.0);
        return (ofOne ? one : in[0]) / (one + exp(-in[0]));
      });
    };
    k.store(silu, {row, k.index(0)}, quotient(false));
    k.store(sigmoid, {row, k.index(0)}, siluAlone ? t : quotient(true));
  });
  return k.finish();
}

inline dsl::BuiltKernel logisticQuotients(mlir::MLIRContext &ctx) { return logisticKernel(ctx, false); }
inline dsl::BuiltKernel siluAlone(mlir::MLIRContext &ctx) { return logisticKernel(ctx, true); }

} // namespace tk::test_kernels
