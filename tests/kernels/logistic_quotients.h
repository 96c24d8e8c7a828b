// The kernels of the exhaustive division check (logistic_division_gpu_test):
// silu(x) = x / (1 + exp(-x)) and sigmoid(x) = 1 / (1 + exp(-x)) of an f32
// tensor, as two outputs (a shared divisor: the branch-free sequence), and
// silu alone (the sequence under one range check per thread). compile_test
// checks that they take those forms.
#pragma once

#include "tk/dsl/KernelBuilder.h"

namespace tk::test_kernels {

constexpr int64_t kCols = 1024, kRowsPerBlock = 4;

inline dsl::BuiltKernel logisticKernel(mlir::MLIRContext &ctx, bool siluAlone) {
  using namespace tk::dsl;
  const char *name = siluAlone ? "silu_alone" : "logistic_quotients";
  KernelBuilder k(ctx, name, 256);
  Dim rows = k.dynamic("rows", kRowsPerBlock);
  Tensor x = k.input("x", {rows, kCols}, DType::F32, {kCols, 1}, 16);
  Tensor siluOut = k.output("silu", {rows, kCols}, DType::F32, {}, 16);
  Tensor sigmoidOut = k.output("sigmoid", {rows, kCols}, DType::F32, {}, 16);
  k.grid({ceil_div(rows, kRowsPerBlock)}, [&](const std::vector<Index> &b) {
    Index row = b[0] * kRowsPerBlock;
    Tile t = k.load(x, {row, k.index(0)}, {kRowsPerBlock, kCols});
    auto quotient = [&](bool ofOne) {
      return map({t}, DType::F32,
                 [ofOne](const std::vector<Scalar> &in) { return ofOne ? dsl::sigmoid(in[0]) : dsl::silu(in[0]); });
    };
    k.store(siluOut, {row, k.index(0)}, quotient(false));
    k.store(sigmoidOut, {row, k.index(0)}, siluAlone ? t : quotient(true));
  });
  return k.finish();
}

inline dsl::BuiltKernel logisticQuotients(mlir::MLIRContext &ctx) { return logisticKernel(ctx, false); }
inline dsl::BuiltKernel siluAlone(mlir::MLIRContext &ctx) { return logisticKernel(ctx, true); }

} // namespace tk::test_kernels
