//===- histogram_config.cpp - the config's key and declared schedule --------===//
//
// Apart from the DSL program (histogram.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/moe/histogram.h"

namespace tk::kernels::moe {

using namespace tk::dsl;

std::string HistogramConfig::key() const {
  const std::string schedule = histogramSchedule().spec().print(*this);
  const char *what = stage == Stage::Zero ? "zero" : stage == Stage::Count ? "count" : "frequency";
  return std::string("histogram:") + what + (stage == Stage::Count ? ",bins=" + std::to_string(bins) : "") +
         (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const HistogramConfig &c) {
  if (c.tileElements() < c.numThreads())
    return std::to_string(c.tileElements()) + " elements per CTA leave some of " + std::to_string(c.numThreads()) +
           " threads without one";
  if (c.tileElements() / c.numThreads() > 64)
    return std::to_string(c.tileElements() / c.numThreads()) + " elements per thread, over 64";
  return "";
}

static std::vector<std::string> searchSpace(const HistogramConfig &, const compiler::Target &) {
  return everyCombination({{"tile", {256, 512, 1024, 2048, 4096, 8192}}, {"threads", {128, 256, 512}}});
}

const OperatorSchedule<HistogramConfig> &histogramSchedule() {
  using C = HistogramConfig;
  static const OperatorSchedule<C> schedule("group_count", "tk_group_count",
                                            ScheduleSpec<C>({
                                                {&C::tile, {"tile", "ids per CTA", 128, 16384, true, 0}},
                                                {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
                                            }),
                                            checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::moe
