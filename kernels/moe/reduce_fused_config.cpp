//===- reduce_fused_config.cpp - the config's key and declared schedule -----===//
//
// Apart from the DSL program (reduce_fused.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/moe/reduce_fused.h"
#include <cmath>
#include <optional>

namespace tk::kernels::moe {

using namespace tk::dsl;

int64_t ReduceFusedConfig::colsPerBlock() const {
  if (cols)
    return cols;
  const int64_t most = heuristicRolls() ? 8192 : 4096; // 7168 on 128 threads rolled: 56 accumulators a thread
  int64_t c = 32;
  while (c < hidden && c < most)
    c *= 2;
  return c;
}

std::string ReduceFusedConfig::key() const {
  const std::string schedule = reduceFusedSchedule().spec().print(*this);
  return std::string("reduce_fused:") + name(in) + "->" + name(out) + ",H=" + std::to_string(hidden) +
         ",K=" + std::to_string(topk) + (weights ? ",w" : "") + (rowScale ? ",x_sf" : "") + (scale ? ",sf" : "") +
         ",align=" + std::to_string(alignBytes) + (schedule.empty() ? "" : "|" + schedule);
}

/// The f32 accumulators stay within 64 per thread.
static std::string checkSchedule(const ReduceFusedConfig &c) {
  if (c.skip && (!c.rolled || c.rowsPerBlock() != 1))
    return "skip needs rolled and one token per CTA (rows=1): the branch is the whole CTA's";
  const int64_t perThread = c.rowsPerBlock() * std::min(c.colsPerBlock(), c.hidden) / c.numThreads();
  if (perThread > 64)
    return std::to_string(c.rowsPerBlock()) + " rows of " + std::to_string(c.colsPerBlock()) + " columns are " +
           std::to_string(perThread) + " accumulators per thread, over 64";
  return "";
}

/// The tiles, the rolled slot loop, and launch bounds on the heuristic's tile (at K = 9 it needs 97 registers at 256
/// threads: 2 CTAs per SM, and a token whose slots mostly name no row is bound by its loads' latency, not by its
/// bytes).
static std::vector<std::string> searchSpace(const ReduceFusedConfig &, const compiler::Target &) {
  std::vector<std::string> out;
  for (const auto &fields : std::vector<std::vector<std::pair<std::string, std::vector<int64_t>>>>{
           {{"rows", {1, 2, 4}}, {"cols", {1024, 2048, 4096}}, {"threads", {128, 256}}},
           {{"rows", {1}}, {"cols", {4096}}, {"threads", {256}}, {"blocks", {2, 3, 4}}},
           {{"rows", {1}}, {"cols", {2048}}, {"threads", {128}}, {"blocks", {5, 6}}},
           // The slots in a loop: one slot's row in registers, so a CTA can take a whole row (TileKernels' shape).
           {{"rows", {1}}, {"cols", {2048, 4096, 8192}}, {"threads", {128, 256}}, {"rolled", {1}}},
           // A slot naming no row skipped whole (a branch per slot), as TileKernels' kernel does.
           {{"rows", {1}}, {"cols", {4096, 8192}}, {"threads", {128, 256}}, {"rolled", {1}}, {"skip", {1}}}}) {
    std::vector<std::string> some = everyCombination(fields);
    out.insert(out.end(), some.begin(), some.end());
  }
  return out;
}

const OperatorSchedule<ReduceFusedConfig> &reduceFusedSchedule() {
  using C = ReduceFusedConfig;
  static const OperatorSchedule<C> schedule(
      "reduce_fused", "tk_reduce_fused",
      ScheduleSpec<C>({
          {&C::rows, {"rows", "tokens per CTA", 1, 64, true, 0}},
          {&C::cols, {"cols", "columns per CTA", 32, 8192, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
          {&C::blocks,
           {"blocks", "CTAs per SM its registers must allow (launch bounds; unset: none)", 1, 32, false, 0}},
          {&C::rolled,
           {"rolled", "1: the slots in a loop, one slot's row in registers at a time (unset: unrolled)", 1, 1, false,
            0}},
          {&C::skip,
           {"skip", "1 (with rolled, rows=1): a slot naming no row skipped by a branch, its FMAs too (unset: they run)",
            1, 1, false, 0}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::moe
