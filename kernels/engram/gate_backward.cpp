//===- gate_backward.cpp --------------------------------------------------===//
#include "kernels/engram/gate_backward.h"
#include "kernels/engram/gate_forward.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace tk::kernels::engram {

using namespace tk::dsl;
using Stage = GateBackwardConfig::Stage;

namespace {

BuiltKernel buildRows(mlir::MLIRContext &ctx, const GateBackwardConfig &c) {
  const int64_t h = c.hidden, align = gateRowAlignBytes(h);
  if (c.splitV && !gateBackwardSplitsValue(h, c.streams))
    throw std::invalid_argument("engram_gate_bwd: split_v needs H a multiple of 8 n");
  // split_v: stream s's CTAs also write grad_v's columns [s w, (s + 1) w), w = H / n (n compile-time).
  const int64_t n = c.streams, width = c.splitV ? h / n : 0;
  KernelBuilder k(ctx, "engram_gate_bwd", c.numThreads());
  Dim tokens = k.dynamic("tokens"), streams = c.splitV ? Dim(n) : k.dynamic("streams"), blocks = k.dynamic("blocks");
  const std::vector<int64_t> dense = {}, free = {kDynamicStride, kDynamicStride, 1};
  Tensor gradOut = k.input("grad_out", {tokens, streams, h}, DType::BF16, dense, align);
  Tensor x = k.input("hidden_states", {tokens, streams, h}, DType::BF16, dense, align);
  Tensor key = k.input("k", {tokens, streams, h}, DType::BF16, free, align);
  Tensor valueIn = k.input("v", {tokens, 1, h}, DType::BF16, free, align);
  Tensor wf = k.input("weight_fused", {1, streams, h}, DType::F32, dense, std::min<int64_t>(16, 2 * align));
  std::vector<Tensor> saved;
  for (const char *name : {"dot", "gate_score", "rstd_x", "rstd_k"})
    saved.push_back(k.input(name, {tokens, streams, 1}, DType::F32, dense, 4));
  Tensor gradX = k.output("grad_x", {tokens, streams, h}, DType::BF16, dense, align);
  Tensor gradK = k.output("grad_k", {tokens, streams, h}, DType::BF16, dense, align);
  std::optional<Tensor> gradV;
  if (c.splitV)
    gradV = k.output("grad_v", {tokens, 1, h}, DType::BF16, dense, align);
  Tensor partial =
      k.output("grad_w_partial", {blocks, streams, h}, DType::F32, dense, std::min<int64_t>(16, 2 * align));
  Uniform clampValue = k.scalarInput("clamp", DType::F32), invSqrtH = k.scalarInput("inv_sqrt_h", DType::F32);
  k.grid({streams, blocks}, [&](const std::vector<Index> &b) {
    Index s = b[0], p = b[1], zero = k.index(0);
    Index perBlock = k.index(ceil_div(tokens, blocks)), first = p * perBlock;
    const std::vector<int64_t> row = {1, 1, h};
    Tile w = k.load(wf, {zero, s, zero}, row);
    // grad_v's columns of this stream: the streams' grad_out there, summed in order as the value kernel does.
    // The other streams' rows are read again, but while their own CTAs (launched beside this one) are at the
    // same tokens: from L2, not DRAM.
    auto value = [&](const Index &t, const std::function<Tile(int64_t)> &dout16) {
      std::optional<Tile> sum;
      for (int64_t j = 0; j < n; ++j) {
        Tile term = dout16(j).to(DType::F32) * expand(k.load(saved[1], {t, k.index(j), zero}, {1, 1, 1}), 2, width);
        sum = sum ? *sum + term : term;
      }
      k.store(*gradV, {t, zero, s * width}, sum->to(DType::BF16));
    };
    // Tokens past T (the last block's range may run over) read as zero: rho
    // is then 0 (a zero dot is clamped) and their stores are dropped.
    auto token = [&](const Index &t, const Tile &dout16, const Tile &v16, const Tile &x16, const Tile &k16,
                     const Tile &acc) {
      Tile dout = dout16.to(DType::F32);
      Tile dg = reduce_sum(dout * v16.to(DType::F32), 2);
      std::vector<Tile> stats;
      for (const Tensor &st : saved)
        stats.push_back(k.load(st, {t, s, zero}, {1, 1, 1}));
      // rho, raw rx^2 / H and raw rk^2 / H from raw, g, rx, rk and dg.
      auto scalar = [&](const std::function<Scalar(const std::vector<Scalar> &)> &f) {
        std::vector<Tile> in = stats;
        in.push_back(dg);
        return expand(map(in, DType::F32, f), 2, h);
      };
      Tile rho = scalar([&](const std::vector<Scalar> &v) {
        const Scalar &raw = v[0], &g = v[1], &rx = v[2], &rk = v[3], &d = v[4];
        Scalar isqh = raw.uniform(invSqrtH), mag = abs(raw);
        Scalar clamped = mag * isqh * rx * rk < raw.uniform(clampValue);
        Scalar slope = d * g * (raw.constantF32(1.0) - g) * raw.constantF32(0.5) * sqrt(isqh * rx * rk / mag);
        return select(clamped, raw.zero(DType::F32), slope);
      });
      Tile alphaX =
          scalar([&](const std::vector<Scalar> &v) { return v[0] * v[2] * v[2] / v[0].constantF32(double(h)); });
      Tile alphaK =
          scalar([&](const std::vector<Scalar> &v) { return v[0] * v[3] * v[3] / v[0].constantF32(double(h)); });
      Tile xf = x16.to(DType::F32), kf = k16.to(DType::F32);
      k.store(gradX, {t, s, zero}, (dout + rho * (kf * w - xf * alphaX)).to(DType::BF16));
      k.store(gradK, {t, s, zero}, (rho * (xf * w - kf * alphaK)).to(DType::BF16));
      return std::vector<Tile>{acc + rho * xf * kf};
    };
    std::vector<Tile> gw;
    if (c.numStages() == 1) {
      gw = k.loop(zero, perBlock, {k.full(row, 0.0)}, [&](const Index &i, const std::vector<Tile> &acc) {
        Index t = first + i;
        // The token's rows are all loaded first, as bf16 (two per register): one wait covers them, where
        // loads after the reduction's barriers waited a second time per token.
        Tile dout16 = k.load(gradOut, {t, s, zero}, row), v16 = k.load(valueIn, {t, zero, zero}, row),
             x16 = k.load(x, {t, s, zero}, row), k16 = k.load(key, {t, s, zero}, row);
        if (c.splitV)
          value(t, [&](int64_t j) { return k.load(gradOut, {t, k.index(j), s * width}, {1, 1, width}); });
        return token(t, dout16, v16, x16, k16, acc[0]);
      });
    } else {
      Shared dsh = k.shared(row, DType::BF16), vsh = k.shared(row, DType::BF16), xsh = k.shared(row, DType::BF16),
             ksh = k.shared(row, DType::BF16);
      std::optional<Shared> columns; // split_v: every stream's grad_out in this stream's columns of grad_v
      if (c.splitV)
        columns = k.shared({1, n, width}, DType::BF16);
      gw = k.pipeline(zero, perBlock, c.numStages(), {k.full(row, 0.0)},
                      [&](const Index &i, const std::vector<Tile> &acc) {
                        Index t = first + i;
                        k.copy(gradOut, {t, s, zero}, dsh);
                        k.copy(valueIn, {t, zero, zero}, vsh);
                        k.copy(x, {t, s, zero}, xsh);
                        k.copy(key, {t, s, zero}, ksh);
                        if (c.splitV)
                          k.copy(gradOut, {t, zero, s * width}, *columns);
                        auto read = [&](const Shared &buf) { return k.load(buf, {zero, zero, zero}, row); };
                        if (c.splitV)
                          value(t, [&](int64_t j) {
                            return k.load(*columns, {zero, k.index(j), zero}, {1, 1, width});
                          });
                        return token(t, read(dsh), read(vsh), read(xsh), read(ksh), acc[0]);
                      });
    }
    k.store(partial, {p, s, zero}, gw[0]);
  });
  return k.finish();
}

/// T = 0: only grad_w_partial's zero rows (the launcher refuses the rows kernel's empty token tensors).
BuiltKernel buildZero(mlir::MLIRContext &ctx, const GateBackwardConfig &c) {
  const int64_t h = c.hidden;
  KernelBuilder k(ctx, "engram_gate_bwd_zero", c.numThreads());
  Dim streams = k.dynamic("streams"), blocks = k.dynamic("blocks");
  Tensor partial = k.output("grad_w_partial", {blocks, streams, h}, DType::F32, {}, 4);
  k.grid({streams, blocks}, [&](const std::vector<Index> &b) {
    k.store(partial, {b[1], b[0], k.index(0)}, k.full({1, 1, h}, 0.0));
  });
  return k.finish();
}

BuiltKernel buildValue(mlir::MLIRContext &ctx, const GateBackwardConfig &c) {
  const int64_t h = c.hidden, n = c.streams, align = gateRowAlignBytes(h);
  if (n < 1)
    throw std::invalid_argument("engram_gate_bwd_v: needs n >= 1");
  KernelBuilder k(ctx, "engram_gate_bwd_v", c.numThreads());
  Dim tokens = k.dynamic("tokens");
  Tensor gradOut = k.input("grad_out", {tokens, n, h}, DType::BF16, {}, align);
  Tensor gate = k.input("gate_score", {tokens, n, 1}, DType::F32, {}, 4);
  Tensor gradV = k.output("grad_v", {tokens, 1, h}, DType::BF16, {}, align);
  k.grid({tokens}, [&](const std::vector<Index> &b) {
    Index t = b[0], zero = k.index(0);
    Tile sum = k.full({1, 1, h}, 0.0);
    for (int64_t s = 0; s < n; ++s) { // the streams in order, as the reference adds them
      Tile term = k.load(gradOut, {t, k.index(s), zero}, {1, 1, h}).to(DType::F32) *
                  expand(k.load(gate, {t, k.index(s), zero}, {1, 1, 1}), 2, h);
      sum = s ? sum + term : term;
    }
    k.store(gradV, {t, zero, zero}, sum.to(DType::BF16));
  });
  return k.finish();
}
} // namespace

BuiltKernel buildGateBackward(mlir::MLIRContext &ctx, const GateBackwardConfig &c) {
  if (c.hidden < 1)
    throw std::invalid_argument("engram_gate_bwd: needs H >= 1");
  switch (c.stage) {
  case Stage::Rows:
    return buildRows(ctx, c);
  case Stage::Value:
    return buildValue(ctx, c);
  case Stage::Zero:
    break;
  }
  return buildZero(ctx, c);
}

} // namespace tk::kernels::engram
