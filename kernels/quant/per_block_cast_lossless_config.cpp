//===- per_block_cast_lossless_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (per_block_cast_lossless.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/quant/per_block_cast_lossless.h"

namespace tk::kernels::quant {

using namespace tk::dsl;

std::string PerBlockLosslessConfig::key() const {
  const std::string schedule = perBlockLosslessSchedule().spec().print(*this);
  return "per_block_cast_lossless:K=" + std::to_string(hidden) + ",in=" + std::to_string(inBlockM) + "x" +
         std::to_string(inBlockK) + ",out=" + std::to_string(outBlockM) + "x" + std::to_string(outBlockK) +
         (inPackedSf ? ",inue8m0" : "") + (outPackedSf ? ",ue8m0" : "") + ",xalign=" + std::to_string(xAlignBytes) +
         ",outalign=" + std::to_string(outAlignBytes) + (schedule.empty() ? "" : "|" + schedule);
}

/// Whole input and output blocks per tile, 16 values per thread at least.
static std::string checkSchedule(const PerBlockLosslessConfig &c) {
  const int64_t rows = c.tileM(), cols = c.tileK(), threads = c.threads();
  if (rows % c.inBlockM || rows % c.outBlockM)
    return "rows must be a multiple of " + std::to_string(std::max(c.inBlockM, c.outBlockM)) + ", got " +
           std::to_string(rows);
  if (cols % c.inBlockK || cols % c.outBlockK)
    return "cols must be a multiple of " + std::to_string(std::max(c.inBlockK, c.outBlockK)) + ", got " +
           std::to_string(cols);
  if ((rows * cols) % (threads * 16))
    return "each of the " + std::to_string(threads) + " threads needs a multiple of 16 values of the " +
           std::to_string(rows) + " x " + std::to_string(cols) + " tile";
  return "";
}

/// Twice and half the heuristic's columns and threads.
static std::vector<std::string> searchSpace(const PerBlockLosslessConfig &c, const compiler::Target &) {
  const int64_t m = c.tileM(), k = c.tileK(), t = c.threads();
  std::vector<std::string> out;
  for (auto [cols, threads] : {std::pair{k, t / 2}, std::pair{k, t * 2}, std::pair{k * 2, t}, std::pair{k / 2, t / 2}})
    if (threads >= 32 && threads <= 1024 && cols >= 1)
      out.push_back("rows=" + std::to_string(m) + ",cols=" + std::to_string(cols) +
                    ",threads=" + std::to_string(threads));
  return out;
}

const OperatorSchedule<PerBlockLosslessConfig> &perBlockLosslessSchedule() {
  using C = PerBlockLosslessConfig;
  static const OperatorSchedule<C> schedule(
      "per_block_cast_lossless", "tk_per_block_cast_lossless",
      ScheduleSpec<C>({
          {&C::tileRows, {"rows", "rows of the CTA's tile (whole input and output blocks)", 1, 1024, false, 0}},
          {&C::tileCols, {"cols", "columns of the CTA's tile (whole blocks)", 32, 16384, false, 0}},
          {&C::threadCount, {"threads", "threads per CTA", 32, 1024, true, 0}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::quant
