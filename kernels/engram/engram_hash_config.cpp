//===- engram_hash_config.cpp - the config's key and declared schedule ------===//
//
// Apart from the DSL program (engram_hash.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/engram/engram_hash.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <stdexcept>

namespace tk::kernels::engram {

using namespace tk::dsl;

std::string EngramHashConfig::key() const {
  const std::string schedule = engramHashSchedule().spec().print(*this);
  return "engram_hash:N=" + std::to_string(ngram) + ",Lh=" + std::to_string(layers) + ",E=" + std::to_string(tables) +
         (schedule.empty() ? "" : "|" + schedule);
}

int64_t EngramHashConfig::width() const { return llvm::PowerOf2Ceil(columns()); }

int64_t EngramHashConfig::rowsPerBlock() const {
  // 32 tokens: 126 CTAs for the spec's 4001 (128 gave 32 CTAs, each with 16 serial 64-bit floor-mods per thread).
  return rows ? rows : std::min<int64_t>(32, std::max<int64_t>(1, 4096 / width()));
}

static std::string checkSchedule(const EngramHashConfig &c) {
  const int64_t perThread = c.rowsPerBlock() * c.width() / c.numThreads();
  if (perThread > 64)
    return std::to_string(perThread) + " hashes per thread, over 64";
  return "";
}

static std::vector<std::string> searchSpace(const EngramHashConfig &, const compiler::Target &) {
  return everyCombination({{"rows", {32, 64, 128, 256}}, {"threads", {32, 64, 128, 256}}});
}

const OperatorSchedule<EngramHashConfig> &engramHashSchedule() {
  using C = EngramHashConfig;
  static const OperatorSchedule<C> schedule("engram_hash", "tk_engram_hash",
                                            ScheduleSpec<C>({
                                                {&C::rows, {"rows", "tokens per CTA", 1, 1024, true, 0}},
                                                {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
                                            }),
                                            checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::engram
