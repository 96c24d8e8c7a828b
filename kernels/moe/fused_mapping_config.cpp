//===- fused_mapping_config.cpp - the config's key and declared schedule ===//
//
// Apart from the DSL programs (fused_mapping_kernels.cpp): what a call needs
// to name and schedule its kernels, without the DSL (a runtime that only
// loads bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/moe/fused_mapping_kernels.h"

namespace tk::kernels::moe {

std::string fusedMappingScheduleError(const FusedMappingConfig &c) {
  if (c.numThreads() % 32 || c.numThreads() > c.bins)
    return "threads must be a multiple of 32 and at most the " + std::to_string(c.bins) + " bins, got " +
           std::to_string(c.numThreads());
  if (c.numBlocks() > 128)
    return "at most 128 blocks (an Offsets block scans their counts in 32 KB of shared memory), got " +
           std::to_string(c.numBlocks());
  if (c.warps() * c.bins * 4 > 32768)
    return std::to_string(c.warps()) + " warps x " + std::to_string(c.bins) +
           " bins of cursors exceed 32 KB of shared memory";
  if (c.numScanThreads() % 32 || c.numScanThreads() > c.numBlocks() * kFusedMappingScanColumns)
    return "scan_threads must be a multiple of 32 and at most blocks x " + std::to_string(kFusedMappingScanColumns);
  if (c.numThreads() > kFusedMappingCountTile)
    return "threads must be at most the " + std::to_string(kFusedMappingCountTile) +
           " ids a counting CTA loads per step";
  return "";
}

namespace {

std::vector<std::string> searchSpace(const FusedMappingConfig &, const compiler::Target &) {
  std::vector<std::string> out =
      everyCombination({{"blocks", {32, 64, 128}}, {"threads", {128, 256}}, {"scan_threads", {256, 1024}}});
  const std::vector<std::string> merged =
      everyCombination({{"blocks", {32, 64, 128}}, {"threads", {128, 256}}, {"merged", {1}}});
  out.insert(out.end(), merged.begin(), merged.end());
  return out;
}

} // namespace

int64_t fusedMappingBins(int64_t experts) { return std::max<int64_t>(256, (experts + 127) / 128 * 128); }

std::string FusedMappingConfig::key() const {
  const std::string schedule = fusedMappingSchedule().spec().print(*this);
  const char *what = stage == Stage::Count ? "count" : stage == Stage::Offsets ? "offsets" : "place";
  return std::string("fused_mapping:") + what + ",bins=" + std::to_string(bins) +
         (schedule.empty() ? "" : "|" + schedule);
}

const OperatorSchedule<FusedMappingConfig> &fusedMappingSchedule() {
  using C = FusedMappingConfig;
  static const OperatorSchedule<C> schedule(
      "get_fused_mapping", "tk_get_fused_mapping",
      ScheduleSpec<C>({
          {&C::blocks,
           {"blocks", "CTAs counting and placing the slots (chunks of the slots: blocks x warps)", 1, 128, false, 0}},
          {&C::threads, {"threads", "threads per counting and placing CTA", 32, 1024, true, 0}},
          {&C::scanThreads, {"scan_threads", "threads of the one CTA that scans the counts", 32, 1024, true, 0}},
          {&C::merged,
           {"merged", "1: no Offsets kernel, each placing CTA sums the counts itself (unset: three kernels)", 1, 1,
            false, 0}},
          {&C::pdl, dependentLaunchField()},
      }),
      fusedMappingScheduleError, searchSpace);
  return schedule;
}

} // namespace tk::kernels::moe
