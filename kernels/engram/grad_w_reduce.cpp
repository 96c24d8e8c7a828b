//===- grad_w_reduce.cpp --------------------------------------------------===//
#include "kernels/engram/grad_w_reduce.h"

namespace tk::kernels::engram {

using namespace tk::dsl;

std::string GradWReduceConfig::key() const {
  const std::string schedule = gradWReduceSchedule().spec().print(*this);
  return "engram_grad_w_reduce|v" + std::to_string(vector) + (schedule.empty() ? std::string() : "|" + schedule);
}

static std::string checkSchedule(const GradWReduceConfig &c) {
  const int64_t perThread = c.rowsPerStep() * c.columnsPerBlock() / c.numThreads();
  if (perThread < 1 || perThread > 64)
    return "rows x columns must be 1 to 64 per thread, got " + std::to_string(perThread);
  return "";
}

static std::vector<std::string> searchSpace(const GradWReduceConfig &, const compiler::Target &) {
  // Few loop iterations (each waits for its loads) and enough CTAs: many rows, few columns.
  return everyCombination({{"rows", {16, 32, 64, 128, 256}}, {"columns", {32, 64, 128, 256}}, {"threads", {64, 128, 256}}});
}

const OperatorSchedule<GradWReduceConfig> &gradWReduceSchedule() {
  using C = GradWReduceConfig;
  static const OperatorSchedule<C> schedule(
      "engram_grad_w_reduce", "tk_engram_grad_w_reduce",
      ScheduleSpec<C>({
          {&C::rows, {"rows", "partial rows added per loop iteration (a power of two)", 1, 256, true, 0}},
          {&C::columns, {"columns", "columns of n H per CTA (a power of two)", 32, 4096, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

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
    std::vector<Tile> acc = k.loop(zero, k.index(ceil_div(p, rows)), {k.full({rows, cols}, 0.0)},
                                   [&](const Index &i, const std::vector<Tile> &carried) -> std::vector<Tile> {
                                     return {carried[0] + k.load(partial, {i * rows, col}, {rows, cols})};
                                   });
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
