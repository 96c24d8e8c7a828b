//===- fused_weight_config.cpp - the config's key and declared schedule -----===//
//
// Apart from the DSL program (fused_weight.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/engram/fused_weight.h"

namespace tk::kernels::engram {

using namespace tk::dsl;

std::string FusedWeightConfig::key() const {
  const std::string schedule = fusedWeightSchedule().spec().print(*this);
  return "engram_fused_weight" + (schedule.empty() ? std::string() : "|" + schedule);
}

static std::string checkSchedule(const FusedWeightConfig &c) {
  if (c.tileElements() % c.numThreads() || c.tileElements() / c.numThreads() > 64)
    return "elements per CTA must be 1 to 64 per thread";
  return "";
}

static std::vector<std::string> searchSpace(const FusedWeightConfig &, const compiler::Target &) {
  return everyCombination({{"elements", {1024, 2048, 4096, 8192}}, {"threads", {128, 256, 512}}});
}

const OperatorSchedule<FusedWeightConfig> &fusedWeightSchedule() {
  using C = FusedWeightConfig;
  static const OperatorSchedule<C> schedule(
      "engram_fused_weight", "tk_engram_fused_weight",
      ScheduleSpec<C>({
          {&C::elements, {"elements", "elements per CTA (a power of two)", 32, 16384, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::engram
