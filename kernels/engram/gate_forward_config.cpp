//===- gate_forward_config.cpp - the config's key and declared schedule -----===//
//
// Apart from the DSL program (gate_forward.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/engram/gate_forward.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace tk::kernels::engram {

using namespace tk::dsl;

std::string GateForwardConfig::key() const {
  const std::string schedule = gateForwardSchedule().spec().print(*this);
  return "engram_gate_fwd:H=" + std::to_string(hidden) + (save ? ",save" : "") +
         (schedule.empty() ? "" : "|" + schedule);
}

int64_t GateForwardConfig::numStages() const {
  if (stages)
    return stages;
  // Two versions of the three rows (12 H bytes): 88-97% of the copy ceiling
  // on the H200 at H 4096 and 7168, where one CTA per row reached 73-81%
  // (docs/engram_kernels.md). Up to H = 12288 two versions (144 KB there)
  // fit sm_80's 163 KB of shared memory per block; past it, one CTA per row.
  // The API also runs one CTA per row where the device has less (99 KB on
  // sm_86 and sm_89) or T needs more than 65535 token groups.
  return hidden <= 12288 ? 2 : 1;
}

int64_t GateForwardConfig::numThreads() const {
  if (threads)
    return threads;
  // About 32 columns per thread: 7168 -> 256 threads (28 each), 2048 -> 64.
  return std::clamp<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(1, hidden / 32)), 64, 512);
}

static std::string checkSchedule(const GateForwardConfig &c) {
  if (c.hidden > 64 * c.numThreads())
    return "H = " + std::to_string(c.hidden) + " is over 64 columns per thread at " + std::to_string(c.numThreads()) +
           " threads";
  if (c.rows && c.numStages() == 1)
    return "rows is the pipelined kernel's (stages = 1 is the one-CTA-per-row kernel)";
  return "";
}

bool gateSharedRowsFit(int64_t rowsBytes, int64_t limit, int64_t scratch) {
  return limit <= 0 || rowsBytes + scratch <= limit;
}

static std::vector<std::string> searchSpace(const GateForwardConfig &c, const compiler::Target &t) {
  std::vector<std::string> out = everyCombination({{"threads", {64, 128, 256, 512, 1024}}, {"stages", {1}}});
  std::vector<int64_t> stages; // pipelines whose rows (3 x 2H bytes a stage) fit the target
  for (int64_t s : {2, 3})
    if (gateSharedRowsFit(s * 6 * c.hidden, t.maxSharedBytes))
      stages.push_back(s);
  if (!stages.empty())
    for (const std::string &p :
         everyCombination({{"threads", {128, 256, 512}}, {"stages", stages}, {"rows", {4, 8, 16}}}))
      out.push_back(p);
  return out;
}

const OperatorSchedule<GateForwardConfig> &gateForwardSchedule() {
  using C = GateForwardConfig;
  static const OperatorSchedule<C> schedule(
      "engram_gate_fwd", "tk_engram_gate_fwd",
      ScheduleSpec<C>({{&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
                       {&C::stages,
                        {"stages",
                         "versions of the pipelined kernel's shared rows; 1: one CTA per row, "
                         "no pipeline",
                         1, 8, false, 0}},
                       {&C::rows, {"rows", "tokens per CTA of the pipelined kernel", 1, 1024, false, 0}}}),
      checkSchedule, searchSpace);
  return schedule;
}

int64_t gateRowAlignBytes(int64_t hidden) {
  return std::min<int64_t>(16, int64_t(1) << llvm::countr_zero(uint64_t(2 * hidden)));
}

} // namespace tk::kernels::engram
