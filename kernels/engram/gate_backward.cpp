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

/// The backward's tensors, declared in the rows kernels' argument order.
struct GateBackwardArgs {
  const int64_t h, align;
  const std::vector<int64_t> dense = {}, free = {kDynamicStride, kDynamicStride, 1};
  Dim tokens, blocks;
  Tensor gradOut, x, key, valueIn, wf;
  std::vector<Tensor> saved; ///< dot, gate_score, rstd_x, rstd_k
  Tensor gradX, gradK;
  std::optional<Tensor> gradV; ///< split_v and fused only
  Tensor partial;
  Uniform clampValue, invSqrtH;

  /// `tokens` and `blocks` the kernel's dynamic dimensions, `streams` one or a constant.
  GateBackwardArgs(KernelBuilder &k, const GateBackwardConfig &c, const Dim &tokens, const Dim &streams,
                   const Dim &blocks, bool withGradV)
      : h(c.hidden), align(gateRowAlignBytes(h)), tokens(tokens), blocks(blocks),
        gradOut(k.input("grad_out", {tokens, streams, h}, DType::BF16, dense, align)),
        x(k.input("hidden_states", {tokens, streams, h}, DType::BF16, dense, align)),
        key(k.input("k", {tokens, streams, h}, DType::BF16, free, align)),
        valueIn(k.input("v", {tokens, 1, h}, DType::BF16, free, align)),
        wf(k.input("weight_fused", {1, streams, h}, DType::F32, dense, std::min<int64_t>(16, 2 * align))),
        saved(savedInputs(k, tokens, streams)),
        gradX(k.output("grad_x", {tokens, streams, h}, DType::BF16, dense, align)),
        gradK(k.output("grad_k", {tokens, streams, h}, DType::BF16, dense, align)),
        gradV(withGradV ? std::optional<Tensor>(k.output("grad_v", {tokens, 1, h}, DType::BF16, dense, align))
                        : std::nullopt),
        partial(k.output("grad_w_partial", {blocks, streams, h}, DType::F32, dense, std::min<int64_t>(16, 2 * align))),
        clampValue(k.scalarInput("clamp", DType::F32)), invSqrtH(k.scalarInput("inv_sqrt_h", DType::F32)) {}

  static std::vector<Tensor> savedInputs(KernelBuilder &k, const Dim &tokens, const Dim &streams) {
    std::vector<Tensor> out;
    for (const char *name : {"dot", "gate_score", "rstd_x", "rstd_k"})
      out.push_back(k.input(name, {tokens, streams, 1}, DType::F32, {}, 4));
    return out;
  }

  /// Token t's saved statistics of `count` streams from s: raw, g, rx, rk ([1, count, 1] each).
  std::vector<Tile> stats(KernelBuilder &k, const Index &t, const Index &s, int64_t count = 1) const {
    std::vector<Tile> out;
    for (const Tensor &st : saved)
      out.push_back(k.load(st, {t, s, k.index(0)}, {1, count, 1}));
    return out;
  }

  /// rho, raw rx^2 / H and raw rk^2 / H from the statistics and dg = sum dout v, each expanded to `width` columns.
  std::vector<Tile> rates(int64_t h, const std::vector<Tile> &stat, const Tile &dg, int64_t width) const {
    auto scalar = [&](const std::function<Scalar(const std::vector<Scalar> &)> &f) {
      std::vector<Tile> in = stat;
      in.push_back(dg);
      return expand(map(in, DType::F32, f), 2, width);
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
    return {rho, alphaX, alphaK};
  }

  /// Columns [col, col + width) of token t, stream s, given rates() at that width and grad_out there in f32:
  /// stores grad_x and grad_k there and returns the weight gradient's partial there plus rho x k.
  Tile columns(KernelBuilder &k, const Index &t, const Index &s, const Index &col, const std::vector<Tile> &rate,
               const Tile &w, const Tile &dout, const Tile &x16, const Tile &k16, const Tile &acc) const {
    Tile xf = x16.to(DType::F32), kf = k16.to(DType::F32);
    // Fused multiply-adds: 8 f32 operations a column where products and sums rounded apart took 12, in a loop
    // whose issue slots are half busy (2.5% off the time at H = 7168); within the fp64 reference's tolerance.
    std::vector<Tile> in = {dout, rate[0], rate[1], rate[2], xf, kf, w, acc};
    auto at = [&](const std::function<Scalar(const Scalar &dout, const Scalar &rho, const Scalar &alphaX,
                                             const Scalar &alphaK, const Scalar &x, const Scalar &k, const Scalar &w,
                                             const Scalar &acc)> &f) {
      return map(in, DType::F32,
                 [&](const std::vector<Scalar> &e) { return f(e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]); });
    };
    k.store(gradX, {t, s, col}, at([](auto &d, auto &r, auto &ax, auto &, auto &x, auto &kv, auto &w, auto &) {
                                  return fma(r, fma(kv, w, -(x * ax)), d);
                                }).to(DType::BF16));
    k.store(gradK, {t, s, col}, at([](auto &, auto &r, auto &, auto &ak, auto &x, auto &kv, auto &w, auto &) {
                                  return r * fma(x, w, -(kv * ak));
                                }).to(DType::BF16));
    return at([](auto &, auto &r, auto &, auto &, auto &x, auto &kv, auto &, auto &a) { return fma(r * x, kv, a); });
  }

  /// Token t of stream s from its rows (bf16, [1, 1, H]) and wf's row: stores grad_x and grad_k and returns the
  /// weight gradient's partial plus rho x k. Tokens past T (the last block's range may run over) read as zero:
  /// rho is then 0 (a zero dot is clamped) and their stores are dropped.
  Tile token(KernelBuilder &k, int64_t h, const Index &t, const Index &s, const Tile &w, const Tile &dout16,
             const Tile &v16, const Tile &x16, const Tile &k16, const Tile &acc) const {
    Tile dout = dout16.to(DType::F32);
    Tile dg = reduce_sum(dout * v16.to(DType::F32), 2);
    std::vector<Tile> stat = stats(k, t, s);
    return columns(k, t, s, k.index(0), rates(h, stat, dg, h), w, dout, x16, k16, acc);
  }

  /// grad_v's `width` columns at `col` of token t: the n streams' grad_out there times their gates, summed in
  /// order (the value kernel's bits).
  void value(KernelBuilder &k, const Index &t, const Index &col, int64_t n, int64_t width,
             const std::function<Tile(int64_t)> &dout16) const {
    Index zero = k.index(0);
    std::optional<Tile> sum;
    for (int64_t j = 0; j < n; ++j) {
      Tile term = dout16(j).to(DType::F32) * expand(k.load(saved[1], {t, k.index(j), zero}, {1, 1, 1}), 2, width);
      sum = sum ? *sum + term : term;
    }
    k.store(*gradV, {t, zero, col}, sum->to(DType::BF16));
  }
};

BuiltKernel buildRows(mlir::MLIRContext &ctx, const GateBackwardConfig &c) {
  const int64_t h = c.hidden;
  if (c.splitV && !gateBackwardSplitsValue(h, c.streams))
    throw std::invalid_argument("engram_gate_bwd: split_v needs H a multiple of 8 n");
  // split_v: stream s's CTAs also write grad_v's columns [s w, (s + 1) w), w = H / n (n compile-time).
  const int64_t n = c.streams, width = c.splitV ? h / n : 0;
  KernelBuilder k(ctx, "engram_gate_bwd", c.numThreads());
  Dim tokens = k.dynamic("tokens"), streams = c.splitV ? Dim(n) : k.dynamic("streams"), blocks = k.dynamic("blocks");
  GateBackwardArgs a(k, c, tokens, streams, blocks, c.splitV);
  k.grid({streams, blocks}, [&](const std::vector<Index> &b) {
    Index s = b[0], p = b[1], zero = k.index(0);
    Index perBlock = k.index(ceil_div(tokens, blocks)), first = p * perBlock;
    const std::vector<int64_t> row = {1, 1, h};
    Tile w = k.load(a.wf, {zero, s, zero}, row);
    std::vector<Tile> gw;
    if (c.numStages() == 1) {
      gw = k.loop(zero, perBlock, {k.full(row, 0.0)}, [&](const Index &i, const std::vector<Tile> &acc) {
        Index t = first + i;
        // The token's rows are all loaded first, as bf16 (two per register): one wait covers them, where
        // loads after the reduction's barriers waited a second time per token.
        Tile dout16 = k.load(a.gradOut, {t, s, zero}, row), v16 = k.load(a.valueIn, {t, zero, zero}, row),
             x16 = k.load(a.x, {t, s, zero}, row), k16 = k.load(a.key, {t, s, zero}, row);
        // grad_v's columns of this stream: the other streams' rows are read again, but while their own CTAs
        // (launched beside this one) are at the same tokens: from L2, not DRAM.
        if (c.splitV)
          a.value(k, t, s * width, n, width, [&](int64_t j) {
            return k.load(a.gradOut, {t, k.index(j), s * width}, {1, 1, width});
          });
        return std::vector<Tile>{a.token(k, h, t, s, w, dout16, v16, x16, k16, acc[0])};
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
                        k.copy(a.gradOut, {t, s, zero}, dsh);
                        k.copy(a.valueIn, {t, zero, zero}, vsh);
                        k.copy(a.x, {t, s, zero}, xsh);
                        k.copy(a.key, {t, s, zero}, ksh);
                        if (c.splitV)
                          k.copy(a.gradOut, {t, zero, s * width}, *columns);
                        auto read = [&](const Shared &buf) { return k.load(buf, {zero, zero, zero}, row); };
                        if (c.splitV)
                          a.value(k, t, s * width, n, width, [&](int64_t j) {
                            return k.load(*columns, {zero, k.index(j), zero}, {1, 1, width});
                          });
                        return std::vector<Tile>{
                            a.token(k, h, t, s, w, read(dsh), read(vsh), read(xsh), read(ksh), acc[0])};
                      });
    }
    k.store(a.partial, {p, s, zero}, gw[0]);
  });
  return k.finish();
}

/// fused: CTA p takes every stream of block p's tokens (n compile-time), so grad_out is read once: a pipeline
/// streams each token's n grad_out rows (and v) through shared memory, x, k and wf come straight from global
/// memory, the n partials ride in registers from token to token (or, with shared_partials, in shared memory),
/// and grad_v is summed from the staged rows. The streams are one [1, n, .] tile throughout: the n row sums
/// share one reduction (one exchange across warps), and each chunk of `chunk` columns loads x, k and wf of every
/// stream at once, the next chunk's before this one's stores (a load is not moved above a store that may alias
/// it, so loads placed after a store wait for it: one wait per chunk of every stream, not one per stream).
BuiltKernel buildFused(mlir::MLIRContext &ctx, const GateBackwardConfig &c) {
  const int64_t h = c.hidden, n = c.streams, chunk = c.chunkColumns();
  const bool sharedPartials = c.sharedPartials;
  if (n < 1)
    throw std::invalid_argument("engram_gate_bwd: fused needs n >= 1");
  KernelBuilder k(ctx, "engram_gate_bwd_fused", c.numThreads());
  Dim tokens = k.dynamic("tokens"), blocks = k.dynamic("blocks");
  GateBackwardArgs a(k, c, tokens, Dim(n), blocks, true);
  const int64_t chunks = h / chunk;
  // A chunk spread over every thread: fewer than 8 columns a thread where the chunk is narrower than 8 x threads
  // (held 8 to a thread, each chunk's partial would take 8 registers on a quarter of the threads).
  if (chunks > 1 && chunk < 8 * c.numThreads())
    k.vectorElements(std::max<int64_t>(1, chunk / c.numThreads()));
  k.grid({blocks}, [&](const std::vector<Index> &b) {
    Index p = b[0], zero = k.index(0);
    Index perBlock = k.index(ceil_div(tokens, blocks)), first = p * perBlock;
    const std::vector<int64_t> row = {1, 1, h}, rows = {1, n, h}, part = {1, n, chunk}, one = {1, 1, chunk};
    Shared dsh = k.shared(rows, DType::BF16);
    std::optional<Shared> vsh, psh; // v's stage; the partials with shared_partials
    if (sharedPartials) {
      psh = k.shared(rows, DType::F32);
      for (int64_t q = 0; q < chunks; ++q)
        k.store(*psh, {zero, zero, k.index(q * chunk)}, k.full(part, 0.0));
    } else {
      vsh = k.shared(row, DType::BF16);
    }
    // Registers: chunk q's partials of every stream at q. Each token's iteration has barriers (the stage's wait,
    // the row sums), so a partial written back to shared memory is read again by the next token after one.
    std::vector<Tile> init(sharedPartials ? 0 : chunks, k.full(part, 0.0));
    std::vector<Tile> gw =
        k.pipeline(zero, perBlock, c.numStages(), init, [&](const Index &i, const std::vector<Tile> &acc) {
          Index t = first + i;
          k.copy(a.gradOut, {t, zero, zero}, dsh);
          if (vsh)
            k.copy(a.valueIn, {t, zero, zero}, *vsh);
          // The statistics first: their loads do not wait behind the row sums.
          std::vector<Tile> stat = a.stats(k, t, zero, n), gates;
          for (int64_t j = 0; j < n; ++j)
            gates.push_back(expand(k.load(a.saved[1], {t, k.index(j), zero}, {1, 1, 1}), 2, chunk));
          auto columnsAt = [&](int64_t q) {
            Index col = k.index(q * chunk);
            return std::vector<Tile>{k.load(a.wf, {zero, zero, col}, part), k.load(a.x, {t, zero, col}, part),
                                     k.load(a.key, {t, zero, col}, part)};
          };
          // Every stream's dg in one reduction: a chunk at a time, the products added column by column into
          // one chunk-wide tile, which one reduction sums (the rows never live in registers whole, beside the
          // partials). In chunks this adds in another order than the rows kernel's row sums.
          auto valueAt = [&](const Index &col, int64_t width) {
            return (vsh ? k.load(*vsh, {zero, zero, col}, {1, 1, width})
                        : k.load(a.valueIn, {t, zero, col}, {1, 1, width}))
                .to(DType::F32);
          };
          std::optional<Tile> products;
          for (int64_t q = 0; q < chunks; ++q) {
            Index col = k.index(q * chunk);
            Tile dout = k.load(dsh, {zero, zero, col}, part).to(DType::F32), v = expand(valueAt(col, chunk), 1, n);
            products = products ? map({dout, v, *products}, DType::F32,
                                      [](const std::vector<Scalar> &e) { return fma(e[0], e[1], e[2]); })
                                : dout * v;
          }
          Tile dg = reduce_sum(*products, 2);
          std::vector<Tile> rate = a.rates(h, stat, dg, chunk);
          std::vector<Tile> ahead = columnsAt(0);
          std::vector<Tile> next = acc;
          for (int64_t q = 0; q < chunks; ++q) {
            Index col = k.index(q * chunk);
            std::vector<Tile> now = ahead;
            if (q + 1 < chunks)
              ahead = columnsAt(q + 1);
            // grad_v's chunk: the streams in order, as the value kernel adds them.
            std::optional<Tile> value;
            for (int64_t j = 0; j < n; ++j) {
              Tile term = k.load(dsh, {zero, k.index(j), col}, one).to(DType::F32) * gates[j];
              value = value ? *value + term : term;
            }
            k.store(*a.gradV, {t, zero, col}, value->to(DType::BF16));
            Tile dout = k.load(dsh, {zero, zero, col}, part).to(DType::F32);
            Tile before = psh ? k.load(*psh, {zero, zero, col}, part) : acc[q];
            Tile after = a.columns(k, t, zero, col, rate, now[0], dout, now[1], now[2], before);
            if (psh)
              k.store(*psh, {zero, zero, col}, after);
            else
              next[q] = after;
          }
          return next;
        });
    if (psh)
      k.barrier(); // the last token's partials, written back by their threads, read as the stores lay them out
    for (int64_t q = 0; q < chunks; ++q)
      k.store(a.partial, {p, zero, k.index(q * chunk)},
              psh ? k.load(*psh, {zero, zero, k.index(q * chunk)}, part) : gw[q]);
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
    return c.fused ? buildFused(ctx, c) : buildRows(ctx, c);
  case Stage::Value:
    return buildValue(ctx, c);
  case Stage::Zero:
    break;
  }
  return buildZero(ctx, c);
}

} // namespace tk::kernels::engram
