//===- sinkhorn_config.cpp - the config's key and declared schedule -------===//
//
// Apart from the DSL program (sinkhorn.cpp): what a call needs to name and
// schedule its kernel, without the DSL.
//===----------------------------------------------------------------------===//
#include "kernels/mhc/sinkhorn.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace tk::kernels::mhc {

SinkhornSnapshotShapes sinkhornSnapshotShapes(int64_t n, int64_t rows, int64_t repeat) {
  const int64_t rowSteps = repeat > 1 ? repeat - 1 : 1;
  return {{repeat * rows, n, n}, {repeat * rows, 1, n}, {rowSteps * rows, n, 1}};
}

int64_t SinkhornSnapshotShapes::bytes() const {
  int64_t elements = 0;
  for (const std::vector<int64_t> *shape : {&colInputs, &colDivisors, &rowDivisors}) {
    int64_t count = 1;
    for (int64_t d : *shape)
      count *= d;
    elements += count;
  }
  return elements * 4;
}

/// The snapshots' bytes per matrix of a CTA.
static int64_t snapshotBytesPerMatrix(const SinkhornConfig &c) {
  return sinkhornSnapshotShapes(c.n, 1, c.repeat).bytes();
}

int64_t SinkhornConfig::snapshotBytes() const {
  return isRolled() && backward ? numRows() * snapshotBytesPerMatrix(*this) : 0;
}

int64_t SinkhornConfig::numRows() const {
  if (rows)
    return rows;
  // 512 elements a CTA (32 matrices of 4 x 4, 4 a thread at 128 threads); a rolled backward's 4 a thread at its
  // threads (8 matrices at its default 32).
  const bool snapshots = backward && isRolled();
  int64_t fit = std::max<int64_t>(1, (snapshots ? 4 * numThreads() : 512) / (n * n));
  // Snapshots within 48 KB (52 matrices of 4 x 4 at repeat 10; 8 take 7552 bytes).
  if (snapshots)
    fit = std::min(fit, std::max<int64_t>(1, (48 << 10) / snapshotBytesPerMatrix(*this)));
  return std::max<int64_t>(1, (int64_t)llvm::bit_floor((uint64_t)fit));
}

std::string SinkhornConfig::key() const {
  const std::string schedule = sinkhornSchedule(backward).spec().print(*this);
  return std::string(backward ? "sinkhorn_normalize_bwd" : "sinkhorn_normalize_fwd") + ":n=" + std::to_string(n) +
         ",repeat=" + std::to_string(repeat) + (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const SinkhornConfig &c) {
  if (c.numRows() * c.n * c.n > 64 * c.numThreads())
    return "rows x n x n must be at most 64 elements per thread";
  // 160 KB: within sm_80's 163 KB a block (sm_86 and sm_89 parts, which run the sm_80 target, hold 99 KB: a larger
  // schedule fails at load there, naming the device's limit).
  if (c.snapshotBytes() > (160 << 10))
    return "rolled: the backward's snapshots take " + std::to_string(c.snapshotBytes()) +
           " bytes of shared memory, more than 160 KB; take fewer rows";
  return "";
}

static std::vector<std::string> searchSpace(const SinkhornConfig &c, const compiler::Target &) {
  std::vector<std::string> out = everyCombination({{"rows", {8, 16, 32, 64}}, {"threads", {32, 64, 128, 256}}});
  if (c.backward) // unrolled, its registers capped for 4 to 6 CTAs an SM
    for (const char *bound : {"rolled=0,min_blocks=4", "rolled=0,min_blocks=5", "rolled=0,min_blocks=6"})
      out.push_back(bound);
  out.push_back("rolled=0");
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
                                     "CTAs an SM must hold at once: ptxas caps the registers to fit them (for the "
                                     "unrolled form's 168 registers; unset: no cap)",
                                     1, 32, false, 0}},
                                   {&C::rolled,
                                    {"rolled",
                                     "1: the steps as a loop over the repeat count, the backward's snapshots in "
                                     "shared memory; 0: unrolled (unset: rolled)",
                                     0, 1, false, -1}},
                               }),
                               checkSchedule, searchSpace);
  };
  static const OperatorSchedule<C> forward = make("sinkhorn_normalize_fwd"), back = make("sinkhorn_normalize_bwd");
  return backward ? back : forward;
}

} // namespace tk::kernels::mhc
