//===- gate_forward.cpp ---------------------------------------------------===//
#include "kernels/engram/gate_forward.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace tk::kernels::engram {

using namespace tk::dsl;

BuiltKernel buildGateForward(mlir::MLIRContext &ctx, const GateForwardConfig &c) {
  if (c.hidden < 1)
    throw std::invalid_argument("engram_gate_fwd: needs H >= 1");
  const int64_t h = c.hidden;
  KernelBuilder k(ctx, c.save ? "engram_gate_fwd" : "engram_gate_fwd_nosave", c.numThreads());
  Dim tokens = k.dynamic("tokens"), streams = k.dynamic("streams");
  const int64_t rowAlign = gateRowAlignBytes(h);
  const std::vector<int64_t> dense = {}, free = {kDynamicStride, kDynamicStride, 1};
  Tensor x = k.input("hidden_states", {tokens, streams, h}, DType::BF16, dense, rowAlign);
  Tensor key = k.input("k", {tokens, streams, h}, DType::BF16, free, rowAlign);
  Tensor value = k.input("v", {tokens, 1, h}, DType::BF16, free, rowAlign);
  Tensor wf = k.input("weight_fused", {1, streams, h}, DType::F32, dense, std::min<int64_t>(16, 2 * rowAlign));
  Tensor out = k.output("out", {tokens, streams, h}, DType::BF16, dense, rowAlign);
  std::vector<Tensor> saved;
  if (c.save)
    for (const char *name : {"dot", "gate_score", "rstd_x", "rstd_k"})
      saved.push_back(k.output(name, {tokens, streams, 1}, DType::F32, dense, 4));
  Uniform eps = k.scalarInput("eps", DType::F32), clampValue = k.scalarInput("clamp", DType::F32),
          invSqrtH = k.scalarInput("inv_sqrt_h", DType::F32);
  const std::vector<int64_t> row = {1, 1, h};
  // One token's stream from its rows in f32 (and v, loaded when asked):
  // the three sums, the gate, out and the statistics.
  auto gateRow = [&](const Index &t, const Index &s, const Tile &xf, const Tile &kf, const Tile &w,
                     const std::function<Tile()> &loadV) {
    Index zero = k.index(0);
    Tile sx = reduce_sum(xf * xf, 2), sk = reduce_sum(kf * kf, 2), raw = reduce_sum(xf * w * kf, 2);
    auto rstd = [&](const Tile &sum) {
      return map({sum}, DType::F32, [&](const std::vector<Scalar> &v) {
        return rsqrt(v[0] / v[0].constantF32(double(h)) + v[0].uniform(eps));
      });
    };
    Tile rx = rstd(sx), rk = rstd(sk);
    Tile gate = map({raw, rx, rk}, DType::F32, [&](const std::vector<Scalar> &v) {
      Scalar score = v[0] * v[1] * v[2] * v[0].uniform(invSqrtH);
      Scalar q = copysign(sqrt(max(abs(score), v[0].uniform(clampValue))), score);
      return sigmoid(q);
    });
    Tile vf = loadV().to(DType::F32);
    k.store(out, {t, s, zero}, (xf + expand(gate, 2, h) * vf).to(DType::BF16));
    if (c.save) {
      const Tile stats[] = {raw, gate, rx, rk};
      for (size_t i = 0; i < saved.size(); ++i)
        k.store(saved[i], {t, s, zero}, stats[i]);
    }
  };
  if (c.numStages() == 1) {
    k.grid({tokens, streams}, [&](const std::vector<Index> &b) {
      Index t = b[0], s = b[1], zero = k.index(0);
      Tile xf = k.load(x, {t, s, zero}, row).to(DType::F32), kf = k.load(key, {t, s, zero}, row).to(DType::F32);
      // v after the reductions: loaded before them, it held 86 registers
      // instead of 64 and 4001x4x7168 took 270 us instead of 222 (H200).
      gateRow(t, s, xf, kf, k.load(wf, {zero, s, zero}, row), [&] { return k.load(value, {t, zero, zero}, row); });
    });
    return k.finish();
  }
  // Pipelined: CTA (s, p) takes stream s of tokens [p rows, (p + 1) rows);
  // tokens past T copy as zeros and their stores are dropped.
  const int64_t perCta = c.numRows();
  k.grid({streams, ceil_div(tokens, perCta)}, [&](const std::vector<Index> &b) {
    Index s = b[0], first = b[1] * perCta, zero = k.index(0);
    Tile w = k.load(wf, {zero, s, zero}, row);
    Shared xs = k.shared(row, DType::BF16), ks = k.shared(row, DType::BF16), vs = k.shared(row, DType::BF16);
    k.pipeline(zero, k.index(perCta), c.numStages(), [&](const Index &i) {
      Index t = first + i;
      k.copy(x, {t, s, zero}, xs);
      k.copy(key, {t, s, zero}, ks);
      k.copy(value, {t, zero, zero}, vs);
      Tile xf = k.load(xs, {zero, zero, zero}, row).to(DType::F32), kf = k.load(ks, {zero, zero, zero}, row).to(DType::F32);
      gateRow(t, s, xf, kf, w, [&] { return k.load(vs, {zero, zero, zero}, row); });
    });
  });
  return k.finish();
}

} // namespace tk::kernels::engram
