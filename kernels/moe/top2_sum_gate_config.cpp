//===- top2_sum_gate_config.cpp - the config's key and declared schedule ----===//
//
// Apart from the DSL program (top2_sum_gate.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/moe/top2_sum_gate.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace tk::kernels::moe {

using namespace tk::dsl;

int64_t Top2SumGateConfig::width() const { return std::max<int64_t>(32, llvm::PowerOf2Ceil(experts)); }

// One token per CTA where its row fills the threads (tk tune on the H200: E = 72 at 1 x 128 threads 14 us, at
// 2 tokens 16-17 us): the many row reductions of one token are latency, shared by fewer tokens the shorter.
int64_t Top2SumGateConfig::rowsPerBlock() const { return rows ? rows : std::max<int64_t>(1, numThreads() / width()); }

std::string Top2SumGateConfig::key() const {
  const std::string schedule = top2SumGateSchedule().spec().print(*this);
  static const char *scorings[] = {"sigmoid", "sqrtsoftplus", "softmax"};
  return "top2_sum_gate:E=" + std::to_string(experts) + ",G=" + std::to_string(groups) +
         ",Kg=" + std::to_string(topkGroups) + ",K=" + std::to_string(topk) + ",S=" + std::to_string(shared) + "," +
         scorings[(int)scoring] + (mask ? ",mask" : "") + (fixed ? ",fixed" : "") + (unmapped ? ",unmapped" : "") +
         (replicas ? ",map=" + std::to_string(replicas) : "") + (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const Top2SumGateConfig &c) {
  const int64_t perThread = c.rowsPerBlock() * c.width() / c.numThreads();
  if (perThread > 64)
    return std::to_string(perThread) + " logits per thread, over 64";
  if (c.rowsPerBlock() * c.width() < c.numThreads())
    return "fewer logits per CTA than threads";
  if (c.warpRows == 1 && c.rowsPerBlock() < 2)
    return "warp_rows=1 splits two or more tokens among the warps";
  // The rows pass through shared memory: u for the scores and the chosen ids, with group limiting the keys, the
  // groups' keys and the best groups' table too; with replicas logical_count is staged there. Where a row spans
  // warps, each reduction along it exchanges through a buffer of its own (warps x rows x 8 bytes at most; the
  // top-K rounds, the group stage, softmax and the fixed-routing copies). Within 48 KB the buffers stay static,
  // on every target.
  const int64_t staged = c.replicas ? (c.experts + c.shared) * 4 : 0;
  const int64_t perRow = c.width() * (c.grouped() ? 2 : 1) + (int64_t)llvm::PowerOf2Ceil(c.slots()) +
                         (c.grouped() ? 2 * (int64_t)llvm::PowerOf2Ceil(c.groups) : 0);
  const int64_t warps = c.numThreads() / 32;
  const int64_t scratch = c.warpRows == 1 || warps == 1
                              ? 0
                              : warps * c.rowsPerBlock() * 8 * (2 * c.topk + (c.grouped() ? c.topkGroups : 0) + 6);
  if (const int64_t bytes = c.rowsPerBlock() * perRow * 4 + staged + scratch; bytes > 48 * 1024) {
    std::string parts;
    if (staged)
      parts = std::to_string(staged) + " of them logical_count's";
    if (scratch)
      parts += (parts.empty() ? "" : ", ") + std::to_string(scratch) + " the block reductions'";
    return std::to_string(c.rowsPerBlock()) + " rows of " + std::to_string(c.width()) + " take " +
           std::to_string(bytes) + " bytes of shared memory" + (parts.empty() ? "" : " (" + parts + ")") +
           ", over 48 KB";
  }
  return "";
}

// On an H100 (2026-12-06, tk tune --full --match 16384): 16384 tokens took 20.4 us (E = 72), 30.2 (E = 144) and
// 48.0 (E = 256 grouped, 8 tokens) with 16 tokens on 256 threads; one token per 32-thread CTA (TileKernels'
// shape) 24.3, 33.8 and 51.5. At 36 tokens the warp-per-token schedules took 1.04-1.51x the heuristic's time.
void fitTop2SumGateToTokens(Top2SumGateConfig &c, int64_t tokens, int64_t sms) {
  if (tokens < 16 * sms)
    return;
  // Grouped gates hold more per row (the keys' copy, the group stage's registers): one token a warp ran 0.97x
  // the time of two at E = 256 (48.2 against 49.8 us on the H100 above).
  for (int64_t rows : c.grouped() ? std::vector<int64_t>{8} : std::vector<int64_t>{16, 8}) {
    Top2SumGateConfig t = c;
    t.rows = rows, t.threads = 256, t.warpRows = 1;
    if (checkSchedule(t).empty()) {
      c = t;
      return;
    }
  }
}

static std::vector<std::string> searchSpace(const Top2SumGateConfig &, const compiler::Target &) {
  return everyCombination({{"rows", {1, 2, 4, 8, 16}}, {"threads", {32, 64, 128, 256}}, {"warp_rows", {0, 1}}});
}

const OperatorSchedule<Top2SumGateConfig> &top2SumGateSchedule() {
  using C = Top2SumGateConfig;
  static const OperatorSchedule<C> schedule(
      "top2_sum_gate", "tk_top2_sum_gate",
      ScheduleSpec<C>({
          {&C::rows, {"rows", "tokens per CTA", 1, 64, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
          {&C::warpRows, {"warp_rows", "1: warps split the tokens, rows stay in a warp", 0, 1, false, -1}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

std::string top2SumGateProblem(const Top2SumGateParams &p) {
  if (p.experts < 1 || p.topk < 1 || p.topk > p.experts)
    return "needs 1 <= K <= E";
  if ((p.groups == 0) != (p.topkGroups == 0))
    return "num_groups and num_topk_groups are both 0 or both positive";
  if (p.groups > 0 && (p.topkGroups > p.groups || p.experts % p.groups))
    return "needs Kg <= G and E % G == 0";
  if (p.groups > 0 && p.topkGroups < p.groups &&
      (p.experts / p.groups < 2 || p.topk > p.topkGroups * (p.experts / p.groups)))
    return "group limiting needs at least 2 experts per group and K <= Kg x (E / G)";
  if (p.slots() > 32)
    return "needs K + S <= 32";
  // The kernel indexes the map and numbers the experts in 32 bits (experts per rank <= E + X <= its entries).
  if (p.physicalMap && (p.experts + p.sharedSlots) * p.replicas > std::numeric_limits<int32_t>::max())
    return "to_physical_map's (E + S) x (X + 1) entries must fit int32";
  if (p.sharedSlots && (!p.physicalMap || p.sharedSlots > p.replicas - 1))
    return "shared experts need a physical map with at least S + 1 columns";
  if (p.epRanks < 1 || p.tpRanks < 1 || p.tpRank < 0 || p.tpRank >= p.tpRanks || p.epRank < 0)
    return "needs num_ep_ranks, num_tp_ranks >= 1 and 0 <= tp_rank < num_tp_ranks";
  const int64_t x = p.physicalMap ? p.replicas - 1 : 0;
  if ((p.experts + x) / p.epRanks < 1)
    return "(E + X) / num_ep_ranks experts per rank must be at least 1";
  return "";
}

} // namespace tk::kernels::moe
