//===- sinkhorn_config.cpp - the config's key and declared schedule -------===//
//
// Apart from the DSL program (sinkhorn.cpp): what a call needs to name and
// schedule its kernel, without the DSL.
//===----------------------------------------------------------------------===//
#include "kernels/mhc/sinkhorn.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace tk::kernels::mhc {

int64_t SinkhornConfig::numRows() const {
  if (rows)
    return rows;
  // 512 elements per CTA: 32 matrices of 4 x 4, 4 per thread at 128 threads.
  return std::max<int64_t>(1, (int64_t)llvm::bit_floor((uint64_t)std::max<int64_t>(1, 512 / (n * n))));
}

std::string SinkhornConfig::key() const {
  const std::string schedule = sinkhornSchedule(backward).spec().print(*this);
  return std::string(backward ? "sinkhorn_normalize_bwd" : "sinkhorn_normalize_fwd") + ":n=" + std::to_string(n) +
         ",repeat=" + std::to_string(repeat) + (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const SinkhornConfig &c) {
  if (c.numRows() * c.n * c.n > 64 * c.numThreads())
    return "rows x n x n must be at most 64 elements per thread";
  return "";
}

static std::vector<std::string> searchSpace(const SinkhornConfig &c, const compiler::Target &) {
  std::vector<std::string> out = everyCombination({{"rows", {8, 16, 32, 64}}, {"threads", {32, 64, 128, 256}}});
  if (c.backward) // the default tile with its registers capped for 4 to 6 CTAs an SM
    for (const char *bound : {"min_blocks=4", "min_blocks=5", "min_blocks=6"})
      out.push_back(bound);
  return out;
}

const OperatorSchedule<SinkhornConfig> &sinkhornSchedule(bool backward) {
  using C = SinkhornConfig;
  auto make = [](const char *name) {
    return OperatorSchedule<C>(name, std::string("tk_") + name,
                               ScheduleSpec<C>({
                                   {&C::rows, {"rows", "matrices per CTA (a power of two)", 1, 1024, true, 0}},
                                   {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
                                   {&C::minBlocks,
                                    {"min_blocks",
                                     "CTAs an SM must hold at once: ptxas caps the registers to fit them (unset: "
                                     "no cap, or 4 for a backward whose grid has 4 CTAs for every SM)",
                                     1, 32, false, 0}},
                               }),
                               checkSchedule, searchSpace);
  };
  static const OperatorSchedule<C> forward = make("sinkhorn_normalize_fwd"), back = make("sinkhorn_normalize_bwd");
  return backward ? back : forward;
}

} // namespace tk::kernels::mhc
