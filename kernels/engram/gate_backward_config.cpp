//===- gate_backward_config.cpp - the config's key and declared schedule ----===//
//
// Apart from the DSL program (gate_backward.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/engram/gate_backward.h"
#include "kernels/engram/gate_forward.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tk::kernels::engram {

using namespace tk::dsl;
using Stage = GateBackwardConfig::Stage;

std::string GateBackwardConfig::key() const {
  const std::string schedule = gateBackwardSchedule().spec().print(*this);
  const std::string what =
      stage == Stage::Rows
          ? "engram_gate_bwd:H=" + std::to_string(hidden) + (splitV || fused ? ",n=" + std::to_string(streams) : "")
          : "engram_gate_bwd_v:n=" + std::to_string(streams) + ",H=" + std::to_string(hidden);
  return what + (schedule.empty() ? "" : "|" + schedule);
}

int64_t GateBackwardConfig::numThreads() const {
  if (threads)
    return threads;
  // Rows holds five rows (dout, x, k, wf, the partial): about 16 columns per
  // thread (7168 -> 512 threads, 107 registers on sm_90a). 8 columns at 1024
  // threads fit 64 registers on sm_90a but spill on sm_100a: the tuning
  // table's to choose. Value holds two rows: about 32.
  // The fused kernel with its partials in shared memory holds two chunks of every stream's rows: at H = 7168 on
  // 512 threads (128 registers) it spills; 256 take 253 registers and ran 511.0 against 540.5 us (H100).
  if (stage == Stage::Rows)
    return std::clamp<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(1, hidden / 16)), 64,
                               fused && sharedPartials ? 256 : 1024);
  return std::clamp<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(1, hidden / 32)), 64, 512);
}

static std::string checkSchedule(const GateBackwardConfig &c) {
  if (c.fused && c.splitV)
    return "fused and split_v both write grad_v: choose one";
  if (c.fused && c.numStages() < 2)
    return "fused streams grad_out through shared memory: it needs stages >= 2";
  if ((c.chunk || c.sharedPartials) && !c.fused)
    return "chunk and shared_partials are the fused kernel's (fused=1)";
  const int64_t most = c.stage == Stage::Rows ? 16 : 64, width = c.fused ? c.chunkColumns() : c.hidden;
  if (width > most * c.numThreads())
    return (c.fused ? "chunk = " : "H = ") + std::to_string(width) + " is over " + std::to_string(most) +
           " columns per thread at " + std::to_string(c.numThreads()) + " threads";
  // A chunk of a row (more columns than threads) is whole columns a thread; one narrower than 8 columns a thread
  // is spread over every thread (KernelBuilder::vectorElements), a power of two of them.
  if (const int64_t chunk = c.chunkColumns(), threads = c.numThreads();
      c.fused && chunk < c.hidden && chunk > threads) {
    if (chunk % threads != 0)
      return "chunk = " + std::to_string(chunk) + " is not a multiple of " + std::to_string(threads) + " threads";
    if (chunk < 8 * threads && !llvm::isPowerOf2_64(chunk / threads))
      return "chunk = " + std::to_string(chunk) + " is " + std::to_string(chunk / threads) + " columns a thread at " +
             std::to_string(threads) + " threads: it needs a power of two";
  }
  return "";
}

bool gateBackwardFusedPartialsFit(const GateBackwardConfig &c) {
  return c.sharedPartials || c.streams * c.hidden <= 128 * c.numThreads();
}

static std::vector<std::string> searchSpace(const GateBackwardConfig &c, const compiler::Target &t) {
  std::vector<int64_t> stages = {1}; // and the pipelines whose rows (4 x 2H bytes a stage) fit the target
  for (int64_t s : {2, 3})
    if (gateSharedRowsFit(s * 8 * c.hidden, t.maxSharedBytes))
      stages.push_back(s);
  std::vector<std::string> out = everyCombination({{"threads", {256, 512, 1024}}, {"stages", stages}});
  out.push_back("threads=128,stages=1");
  if (gateBackwardSplitsValue(c.hidden, c.streams)) { // grad_v's columns by streams: a fifth row per stage
    std::vector<int64_t> split = {1};
    if (gateSharedRowsFit(2 * 10 * c.hidden, t.maxSharedBytes))
      split.push_back(2);
    const std::vector<std::string> more =
        everyCombination({{"threads", {256, 512, 1024}}, {"stages", split}, {"split_v", {1}}});
    out.insert(out.end(), more.begin(), more.end());
  }
  // One kernel over the streams, its partials in registers or in shared memory: the combinations that pass the
  // schedule's checks, whose partials fit (n H / threads <= 128 in registers) and whose buffers fit the target.
  if (c.streams >= 1)
    for (const std::string &combination :
         everyCombination({{"threads", {256, 512, 1024}},
                           {"stages", {2, 3}},
                           {"fused", {1}},
                           {"chunk", {512, 1024, 2048, std::max<int64_t>(32, std::min<int64_t>(8192, c.hidden))}}}))
      for (const char *partials : {"", ",shared_partials=1"}) {
        const std::string fields = combination + partials;
        GateBackwardConfig f = c;
        if (!gateBackwardSchedule().spec().parse(fields, f).empty() || !checkSchedule(f).empty() ||
            !gateBackwardFusedPartialsFit(f) ||
            !gateSharedRowsFit(gateBackwardFusedBytes(f), t.maxSharedBytes, kGateBackwardFusedScratch))
          continue;
        // One spelling per schedule: a chunk that takes the whole row as the row itself (chunk = H).
        if (f.chunk != c.hidden && f.chunkColumns() == c.hidden)
          continue;
        const std::string printed = gateBackwardSchedule().spec().print(f);
        if (std::find(out.begin(), out.end(), printed) == out.end())
          out.push_back(printed);
      }
  return out;
}

const OperatorSchedule<GateBackwardConfig> &gateBackwardSchedule() {
  using C = GateBackwardConfig;
  static const OperatorSchedule<C> schedule(
      "engram_gate_bwd", "tk_engram_gate_bwd",
      ScheduleSpec<C>(
          {{&C::threads,
            {"threads", "threads per CTA of the rows kernel (one stream's row of a token at a time)", 32, 1024, true,
             0}},
           {&C::stages,
            {"stages", "versions of the rows kernel's shared rows; 1: loads in the loop, no pipeline", 1, 8, false, 0}},
           {&C::splitV,
            {"split_v",
             "1: no value kernel; each stream's CTAs write grad_v's H / n columns of their tokens (where H "
             "is a multiple of 8 n)",
             1, 1, false, 0}},
           {&C::fused,
            {"fused",
             "1: one kernel, CTA p over every stream of its tokens: grad_out read once, the n partials in "
             "registers or shared memory (needs stages >= 2)",
             1, 1, false, 0}},
           {&C::chunk,
            {"chunk",
             "fused: columns of a stream's row taken at a time (one not dividing H: the whole row; unset: 1024 where "
             "it "
             "divides a larger H, else the whole row)",
             32, 8192, false, 0}},
           {&C::sharedPartials,
            {"shared_partials",
             "fused: 1, the n partials in shared memory (n x 4H bytes), v read from global memory, not staged", 1, 1,
             false, 0}}}),
      checkSchedule, searchSpace, [](C &) {},
      // The value kernel (grad_v) takes its heuristic; the schedule is the rows kernel's.
      [](const C &c) { return c.stage == Stage::Value; });
  return schedule;
}

} // namespace tk::kernels::engram
