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

/// A pipeline's shared buffers: what every supported device gives a CTA (sm_86's 99 KB, less the rest).
constexpr int64_t kMaxPipelineBytes = 96 * 1024;

static std::string checkSchedule(const GradWReduceConfig &c) {
  const int64_t perThread = c.rowsPerStep() * c.columnsPerBlock() / c.numThreads();
  if (perThread < 1 || perThread > 64)
    return "rows x columns must be 1 to 64 per thread, got " + std::to_string(perThread);
  if (const int64_t bytes = c.numStages() * c.rowsPerStep() * c.columnsPerBlock() * 4; bytes > kMaxPipelineBytes)
    return std::to_string(c.numStages()) + " stages of " + std::to_string(c.rowsPerStep()) + " x " +
           std::to_string(c.columnsPerBlock()) + " f32 take " + std::to_string(bytes) +
           " bytes of shared memory, over " + std::to_string(kMaxPipelineBytes);
  return "";
}

static std::vector<std::string> searchSpace(const GradWReduceConfig &, const compiler::Target &) {
  // Few loop iterations (each waits for its loads) and enough CTAs: many rows, few columns; or few rows a step,
  // wide CTAs, and the steps' loads in flight through a pipeline (TileKernels' shape: 512 columns, 128 threads).
  std::vector<std::string> out = everyCombination(
      {{"rows", {16, 32, 64, 128, 256}}, {"columns", {32, 64, 128, 256}}, {"threads", {64, 128, 256}}});
  for (const std::string &s : everyCombination(
           {{"rows", {1, 2, 4, 8}}, {"columns", {256, 512, 1024}}, {"threads", {128, 256}}, {"stages", {4, 8}}})) {
    GradWReduceConfig c;
    if (gradWReduceSchedule().spec().parse(s, c).empty() && checkSchedule(c).empty())
      out.push_back(s);
  }
  return out;
}

const OperatorSchedule<GradWReduceConfig> &gradWReduceSchedule() {
  using C = GradWReduceConfig;
  static const OperatorSchedule<C> schedule(
      "engram_grad_w_reduce", "tk_engram_grad_w_reduce",
      ScheduleSpec<C>({
          {&C::rows, {"rows", "partial rows added per loop iteration (a power of two)", 1, 256, true, 0}},
          {&C::columns, {"columns", "columns of n H per CTA (a power of two)", 32, 4096, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
          {&C::stages,
           {"stages", "2..8: the chunks through that many shared buffers, copied ahead (unset: loaded in the loop)", 2,
            8, false, 0}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::engram
