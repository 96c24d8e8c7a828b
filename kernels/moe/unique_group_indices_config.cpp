//===- unique_group_indices_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (unique_group_indices.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/moe/unique_group_indices.h"

namespace tk::kernels::moe {

using namespace tk::dsl;

std::string UniqueGroupIndicesConfig::key() const {
  const std::string schedule = uniqueGroupIndicesSchedule().spec().print(*this);
  return "inplace_unique_group_indices:K=" + std::to_string(topk) + (schedule.empty() ? "" : "|" + schedule);
}

static std::vector<std::string> searchSpace(const UniqueGroupIndicesConfig &, const compiler::Target &) {
  return {"rows=64", "rows=128", "rows=256", "rows=512"};
}

const OperatorSchedule<UniqueGroupIndicesConfig> &uniqueGroupIndicesSchedule() {
  using C = UniqueGroupIndicesConfig;
  static const OperatorSchedule<C> schedule(
      "inplace_unique_group_indices", "tk_inplace_unique_group_indices",
      ScheduleSpec<C>({{&C::rows, {"rows", "rows per CTA, one per thread", 32, 1024, true, 0}}}),
      [](const C &) { return std::string(); }, searchSpace);
  return schedule;
}

} // namespace tk::kernels::moe
