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
  static const char *stages[] = {"zero", "count", "frequency", "rows", "sums"};
  const bool binned = stage == Stage::Count || stage == Stage::Rows;
  const bool tabled = stage == Stage::Rows || stage == Stage::RowSums;
  return std::string("histogram:") + stages[(int)stage] + (binned ? ",bins=" + std::to_string(bins) : "") +
         (tabled ? ",width=" + std::to_string(width) : "") +
         (stage == Stage::RowSums && frequency ? ",frequency" : "") + (schedule.empty() ? "" : "|" + schedule);
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
  // Each tile counted into the counts by atomics, or into a row of the table (two kernels for group_count as
  // before, aux_fi's three made two).
  std::vector<std::string> out;
  for (const std::string &t :
       everyCombination({{"tile", {256, 512, 1024, 2048, 4096, 8192}}, {"threads", {128, 256, 512}}}))
    out.insert(out.end(), {t, t + ",table=1"});
  return out;
}

const OperatorSchedule<HistogramConfig> &histogramSchedule() {
  using C = HistogramConfig;
  static const OperatorSchedule<C> schedule(
      "group_count", "tk_group_count, tk_aux_fi",
      ScheduleSpec<C>({
          {&C::tile, {"tile", "ids per CTA", 128, 16384, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
          {&C::table,
           {"table",
            "1: each CTA's counts as a row of a table that a second kernel "
            "sums (no zeroing kernel, no global atomics)",
            1, 1, false, 0}},
          {&C::pdl, dependentLaunchField()},
      }),
      checkSchedule, searchSpace,
      // `table` chooses the stages; a Rows kernel takes the rest.
      [](C &c) {
        if (c.stage != C::Stage::Count)
          c.table = 0;
      },
      // The zeroing, dividing and summing kernels take the heuristic's schedule; a call is keyed (and tuned) by its
      // counting kernel, whose schedule the Rows kernel copies.
      [](const C &c) { return c.stage != C::Stage::Count && c.stage != C::Stage::Rows; });
  return schedule;
}

} // namespace tk::kernels::moe
