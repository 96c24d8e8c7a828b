//===- normalize_weight_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (normalize_weight.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/moe/normalize_weight.h"

namespace tk::kernels::moe {

using namespace tk::dsl;

std::string NormalizeWeightConfig::key() const {
  const std::string schedule = normalizeWeightSchedule().spec().print(*this);
  return "normalize_weight:K=" + std::to_string(topk) + (schedule.empty() ? "" : "|" + schedule);
}

static std::vector<std::string> searchSpace(const NormalizeWeightConfig &, const compiler::Target &) {
  return {"rows=32", "rows=64", "rows=128", "rows=256", "rows=512"};
}

const OperatorSchedule<NormalizeWeightConfig> &normalizeWeightSchedule() {
  using C = NormalizeWeightConfig;
  static const OperatorSchedule<C> schedule(
      "normalize_weight", "tk_normalize_weight",
      ScheduleSpec<C>({{&C::rows, {"rows", "tokens per CTA, one per thread", 32, 1024, true, 0}}}),
      [](const C &) { return std::string(); }, searchSpace);
  return schedule;
}

} // namespace tk::kernels::moe
