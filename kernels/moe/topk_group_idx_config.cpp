//===- topk_group_idx_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (topk_group_idx.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/moe/topk_group_idx.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace tk::kernels::moe {

using namespace tk::dsl;

int64_t TopkGroupIdxConfig::rowsPerBlock() const {
  return rows ? rows : std::max<int64_t>(1, std::min<int64_t>(32, 1024 / std::max<int64_t>(1, experts())));
}

std::string TopkGroupIdxConfig::key() const {
  const std::string schedule = topkGroupIdxSchedule().spec().print(*this);
  return "topk_sum_and_topk_group_idx:G=" + std::to_string(groups) + ",epg=" + std::to_string(perGroup) +
         ",q=" + std::to_string(topkSum) + ",Kg=" + std::to_string(topkGroups) +
         (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const TopkGroupIdxConfig &c) {
  const int64_t perThread = c.rowsPerBlock() * c.experts() / c.numThreads();
  if (perThread > 64)
    return std::to_string(c.rowsPerBlock()) + " rows of " + std::to_string(c.experts()) + " scores over " +
           std::to_string(c.numThreads()) + " threads are " + std::to_string(perThread) + " per thread, over 64";
  return "";
}

static std::vector<std::string> searchSpace(const TopkGroupIdxConfig &, const compiler::Target &) {
  return everyCombination({{"rows", {1, 2, 4, 8, 16}}, {"threads", {32, 64, 128}}});
}

const OperatorSchedule<TopkGroupIdxConfig> &topkGroupIdxSchedule() {
  using C = TopkGroupIdxConfig;
  static const OperatorSchedule<C> schedule("topk_sum_and_topk_group_idx", "tk_topk_sum_and_topk_group_idx",
                                            ScheduleSpec<C>({
                                                {&C::rows, {"rows", "tokens per CTA", 1, 64, true, 0}},
                                                {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
                                            }),
                                            checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::moe
