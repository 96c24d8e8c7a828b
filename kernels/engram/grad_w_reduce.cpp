//===- grad_w_reduce.cpp --------------------------------------------------===//
#include "kernels/engram/grad_w_reduce.h"

namespace tk::kernels::engram {

using namespace tk::dsl;

BuiltKernel buildGradWReduce(mlir::MLIRContext &ctx, const GradWReduceConfig &c) {
  const int64_t rows = c.rowsPerStep(), cols = c.columnsPerBlock();
  KernelBuilder k(ctx, "engram_grad_w_reduce", c.numThreads());
  const int64_t v = c.vector;
  if (v > 1) // chunks of the promised multiple: sm_100a's 32-byte ones would straddle the dynamic n H's end
    k.maxAccessBytes(4 * v);
  Dim p = k.dynamic("blocks"), n = v > 1 ? k.dynamic("elements", v) : k.dynamic("elements");
  Tensor partial = k.input("grad_w_partial", {p, n}, DType::F32, {}, 4 * v);
  // The (n H) vectors as (1, n H): their chunks are (1, cols) tiles, as gW is.
  Tensor wh = k.input("weight_hidden", {1, n}, DType::BF16, {}, 2 * v);
  Tensor we = k.input("weight_embed", {1, n}, DType::BF16, {}, 2 * v);
  Tensor gh = k.output("grad_weight_hidden", {1, n}, DType::F32, {}, 4 * v);
  Tensor ge = k.output("grad_weight_embed", {1, n}, DType::F32, {}, 4 * v);
  k.grid({ceil_div(n, cols)}, [&](const std::vector<Index> &b) {
    Index col = b[0] * cols, zero = k.index(0);
    // Rows past P read as zero, so the last chunk may run over.
    const Index steps = k.index(ceil_div(p, rows));
    std::vector<Tile> acc;
    if (c.numStages() > 1) { // the chunks through shared memory, stages - 1 of them in flight (cp.async)
      Shared chunk = k.shared({rows, cols}, DType::F32);
      acc = k.pipeline(zero, steps, c.numStages(), {k.full({rows, cols}, 0.0)},
                       [&](const Index &i, const std::vector<Tile> &carried) -> std::vector<Tile> {
                         k.copy(partial, {i * rows, col}, chunk);
                         return {carried[0] + k.load(chunk, {zero, zero}, {rows, cols})};
                       });
    } else {
      acc = k.loop(zero, steps, {k.full({rows, cols}, 0.0)},
                   [&](const Index &i, const std::vector<Tile> &carried) -> std::vector<Tile> {
                     return {carried[0] + k.load(partial, {i * rows, col}, {rows, cols})};
                   });
    }
    // The column sums, held once per column (the reduction leaves them
    // replicated across the warps that summed), as the (1, cols) loads are.
    Tile gw = relayout(reduce_sum(acc[0], 0));
    auto chunk = [&](const Tensor &t) { return k.load(t, {zero, col}, {1, cols}); };
    Tile newH = chunk(gh) + gw * chunk(we).to(DType::F32), newE = chunk(ge) + gw * chunk(wh).to(DType::F32);
    k.store(gh, {zero, col}, newH);
    k.store(ge, {zero, col}, newE);
  });
  return k.finish();
}

} // namespace tk::kernels::engram
