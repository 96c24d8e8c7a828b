//===- per_channel_cast.cpp - the kernel, in the DSL ----------------------===//
#include "kernels/quant/per_channel_cast.h"
#include "kernels/quant/scale_rule.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

using namespace tk::dsl;

namespace tk::kernels::quant {

BuiltKernel buildPerChannelCast(mlir::MLIRContext &ctx, const PerChannelCastConfig &c) {
  const int64_t bm = c.tileM(), bk = c.tileK(), b = c.blockM;
  KernelBuilder k(ctx, c.kernelName(), c.numThreads());
  k.allowPaddedStores(); // schedule-sized tiles may run past a small static K
  if (c.maxAccess())
    k.maxAccessBytes(c.maxAccess());
  if (c.rereadsThreadIndex())
    k.rereadThreadIndexInLoops();
  if (c.transposed && c.transposeRowsPerThread() != 4)
    k.transposeRowsPerThread(c.transposeRowsPerThread());
  // Without the gather the entry points take whole blocks of b rows: a
  // promise that lets the transposed store write 8- and 16-byte chunks along
  // the dynamic token dimension.
  Dim tokens = c.rowGather ? k.dynamic("num_tokens") : k.dynamic("num_tokens", c.blockM);
  const int64_t xCols = c.swiglu ? 2 * c.hidden : c.hidden;
  Tensor x = k.input("x", {tokens, xCols}, c.in, {xCols, 1}, c.xAlignBytes);
  const bool quantizedIn = c.in == DType::F8E4M3;
  std::optional<Tensor> xs; // dequantization multipliers of a quantized input, one per 128 channels
  if (quantizedIn)
    xs = k.input("x_sf", {tokens, c.hidden / 128}, DType::F32, {c.hidden / 128, 1}, 4);
  Dim outRows = tokens;
  std::optional<Tensor> posToToken; // the row gather: out row p is x row pos_to_token[p]
  if (c.rowGather) {
    outRows = k.dynamic("num_out_rows");
    posToToken = k.input("pos_to_token", {outRows, 1}, DType::I32, {1, 1}, 4);
  }
  Tensor out = c.transposed ? k.output("out", {c.hidden, outRows}, DType::F8E4M3, {}, c.outAlignBytes)
                            : k.output("out", {outRows, c.hidden}, DType::F8E4M3, {}, c.outAlignBytes);
  Tensor sf = k.output("out_sf", {ceil_div(outRows, b), c.hidden}, DType::F32, {c.hidden, 1}, 4);

  // The cast of row tile `rt` (rows rt * bm ...) at column `col`, given its
  // input tiles (x's, or gate and linear for SwiGLU) and, for a quantized x,
  // its multipliers [bm, multiplierColumns()].
  const int64_t xsCols = c.multiplierColumns();
  auto castTile = [&](const Index &rt, const Index &col, const std::function<Tile(int64_t half)> &loadX,
                      const std::function<Tile()> &loadXs) {
    Index row = rt * bm;
    // The values cast: x's tile, the rows pos_to_token names (zero for -1), or
    // bf16(swiglu(gate, linear)); for a quantized x fl(decode(x) * xs), one
    // multiplier per row and 128 channels. With reloads() they are computed
    // twice, once for the scales and once for the cast.
    auto values = [&] {
      Tile t = c.swiglu ? swigluForward(loadX(0), loadX(1), c.clamp).to(DType::BF16).to(DType::F32)
                        : loadX(0).to(DType::F32);
      if (quantizedIn)
        t = t * expand(loadXs(), 1, std::min<int64_t>(bk, 128));
      return t;
    };
    Tile tile = values();
    Tile amax = reduce_absmax(tile, /*dim=*/0, b); // [bm / b, bk]: one per column and b rows
    auto [scale, inv] = scaleRule(amax, Format::E4M3, c.roundSf);
    k.store(sf, {rt * (bm / b), col}, scale);
    Tile q = ((c.reloads() ? values() : tile) * expand(inv, 0, b)).to(DType::F8E4M3);
    if (c.transposed)
      k.store(out, {col, row}, transpose(q));
    else
      k.store(out, {row, col}, q);
  };

  if (c.stages() > 0 && c.rowGather)
    throw std::invalid_argument("per-channel cast: the row gather is not pipelined (pipelineStages must be 0)");
  if (c.stages() > 0) {
    // Each CTA walks tilesPerBlock row tiles of one column strip; their
    // inputs arrive in shared memory stages - 1 tiles ahead.
    const int64_t n = c.tiles();
    k.grid({ceil_div(outRows, bm * n), ceil_div(c.hidden, bk)}, [&](const std::vector<Index> &blk) {
      Index col = blk[1] * bk;
      std::vector<Shared> bufs;
      for (int half = 0; half < (c.swiglu ? 2 : 1); ++half)
        bufs.push_back(k.shared({bm, bk}, c.in));
      // A quantized input's multipliers travel with its codes: copied in the
      // same stage, they are in shared memory when the tile is, instead of
      // two dependent global loads (scales, then the reload) per tile.
      std::optional<Shared> xsBuf;
      if (quantizedIn)
        xsBuf = k.shared({bm, xsCols}, DType::F32);
      k.pipeline(k.index(0), k.index(n), c.stages(), [&](const Index &i) {
        Index rt = blk[0] * n + i;
        for (size_t half = 0; half < bufs.size(); ++half)
          k.copy(x, {rt * bm, col + int64_t(half) * c.hidden}, bufs[half]);
        if (xsBuf)
          k.copy(*xs, {rt * bm, col / 128}, *xsBuf);
        castTile(
            rt, col, [&](int64_t half) { return k.load(bufs[half], {k.index(0), k.index(0)}, {bm, bk}); },
            [&] { return k.load(*xsBuf, {k.index(0), k.index(0)}, {bm, xsCols}); });
      });
    });
    return k.finish();
  }
  k.grid({ceil_div(outRows, bm), ceil_div(c.hidden, bk)}, [&](const std::vector<Index> &blk) {
    Index row = blk[0] * bm, col = blk[1] * bk;
    std::optional<Tile> rows;
    if (c.rowGather)
      rows = k.load(*posToToken, {row, k.index(0)}, {bm, 1});
    castTile(blk[0], col,
             [&](int64_t half) {
               return rows ? k.gatherRows(x, *rows, col, bk) : k.load(x, {row, col + half * c.hidden}, {bm, bk});
             },
             [&] {
               return rows ? k.gatherRows(*xs, *rows, col / 128, xsCols) : k.load(*xs, {row, col / 128}, {bm, xsCols});
             });
  });
  return k.finish();
}

} // namespace tk::kernels::quant
