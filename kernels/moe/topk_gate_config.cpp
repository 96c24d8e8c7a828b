//===- topk_gate_config.cpp - the config's key and declared schedule --------===//
//
// Apart from the DSL program (topk_gate.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/moe/topk_gate.h"
#include <algorithm>
#include <cmath>
#include <numeric>

namespace tk::kernels::moe {

using namespace tk::dsl;

int64_t TopkGateConfig::width() const {
  int64_t w = 32;
  while (w < experts)
    w *= 2;
  return w;
}

std::string TopkGateConfig::key() const {
  const std::string schedule = topkGateSchedule().spec().print(*this);
  return "topk_gate:E=" + std::to_string(experts) + ",K=" + std::to_string(topk) +
         (schedule.empty() ? "" : "|" + schedule);
}

/// A CTA's scores stay within 64 per thread (its registers), its tile within
/// the fragment limit.
static std::string checkSchedule(const TopkGateConfig &c) {
  const int64_t perThread = c.rowsPerBlock() * c.width() / c.numThreads();
  if (perThread > 64)
    return std::to_string(c.rowsPerBlock()) + " rows of " + std::to_string(c.width()) + " scores over " +
           std::to_string(c.numThreads()) + " threads are " + std::to_string(perThread) + " per thread, over 64";
  if (c.rowsPerBlock() * c.width() < c.numThreads())
    return std::to_string(c.rowsPerBlock()) + " rows of " + std::to_string(c.width()) + " scores leave some of " +
           std::to_string(c.numThreads()) + " threads without one";
  return "";
}

static std::vector<std::string> searchSpace(const TopkGateConfig &, const compiler::Target &) {
  return everyCombination({{"rows", {1, 2, 4, 8, 16}}, {"threads", {32, 64, 128, 256}}});
}

const OperatorSchedule<TopkGateConfig> &topkGateSchedule() {
  using C = TopkGateConfig;
  static const OperatorSchedule<C> schedule("topk_gate", "tk_topk_gate",
                                            ScheduleSpec<C>({
                                                {&C::rows, {"rows", "tokens per CTA", 1, 64, true, 0}},
                                                {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
                                            }),
                                            checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::moe
