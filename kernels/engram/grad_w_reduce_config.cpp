//===- grad_w_reduce_config.cpp - the config's key and declared schedule ----===//
//
// Apart from the DSL program (grad_w_reduce.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/engram/grad_w_reduce.h"

namespace tk::kernels::engram {

using namespace tk::dsl;

std::string GradWReduceConfig::key() const {
  const std::string schedule = gradWReduceSchedule().spec().print(*this);
  return "engram_grad_w_reduce|v" + std::to_string(vector) + (schedule.empty() ? std::string() : "|" + schedule);
}

static std::string checkSchedule(const GradWReduceConfig &c) {
  const int64_t perThread = c.rowsPerStep() * c.columnsPerBlock() / c.numThreads();
  if (perThread < 1 || perThread > 64)
    return "rows x columns must be 1 to 64 per thread, got " + std::to_string(perThread);
  return "";
}

static std::vector<std::string> searchSpace(const GradWReduceConfig &, const compiler::Target &) {
  // Few loop iterations (each waits for its loads) and enough CTAs: many rows, few columns.
  return everyCombination(
      {{"rows", {16, 32, 64, 128, 256}}, {"columns", {32, 64, 128, 256}}, {"threads", {64, 128, 256}}});
}

const OperatorSchedule<GradWReduceConfig> &gradWReduceSchedule() {
  using C = GradWReduceConfig;
  static const OperatorSchedule<C> schedule(
      "engram_grad_w_reduce", "tk_engram_grad_w_reduce",
      ScheduleSpec<C>({
          {&C::rows, {"rows", "partial rows added per loop iteration (a power of two)", 1, 256, true, 0}},
          {&C::columns, {"columns", "columns of n H per CTA (a power of two)", 32, 4096, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::engram
