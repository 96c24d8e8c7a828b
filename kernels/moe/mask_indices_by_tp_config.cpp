//===- mask_indices_by_tp_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (mask_indices_by_tp.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/common/division_magic.h"
#include "kernels/moe/mask_indices_by_tp.h"

namespace tk::kernels::moe {

using namespace tk::dsl;

std::string MaskIndicesConfig::key() const {
  const std::string schedule = maskIndicesSchedule().spec().print(*this);
  return std::string("mask_indices_by_tp:dtype=") + (dtype == DType::I32 ? "i32" : "i64") +
         (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const MaskIndicesConfig &c) {
  if (c.tileElements() < c.numThreads())
    return "a tile of " + std::to_string(c.tileElements()) + " ids leaves some of " + std::to_string(c.numThreads()) +
           " threads without one";
  if (c.tileElements() / c.numThreads() > 64)
    return std::to_string(c.tileElements() / c.numThreads()) + " ids per thread, over 64";
  return "";
}

std::vector<int64_t> maskIndicesScalars(const MaskIndicesConfig &c, int64_t perRank, int64_t tpRanks, int64_t tpRank) {
  std::vector<int64_t> scalars = {perRank, tpRanks, tpRank};
  if (c.usesMagic()) { // the bits of the ids' type: an i32 argument reads the low half
    const int bits = c.dtype == DType::I32 ? 32 : 64;
    for (int64_t d : {perRank, tpRanks}) {
      const DivisionMagic m = divisionMagic(uint64_t(d), bits);
      scalars.push_back(int64_t(m.magic));
      scalars.push_back(m.shift);
    }
  }
  return scalars;
}

static std::vector<std::string> searchSpace(const MaskIndicesConfig &, const compiler::Target &) {
  return everyCombination({{"tile", {128, 256, 512, 1024, 2048}}, {"threads", {128, 256}}, {"magic", {0, 1}}});
}

const OperatorSchedule<MaskIndicesConfig> &maskIndicesSchedule() {
  using C = MaskIndicesConfig;
  static const OperatorSchedule<C> schedule(
      "mask_indices_by_tp", "tk_mask_indices_by_tp",
      ScheduleSpec<C>({
          {&C::tile, {"tile", "ids per CTA", 128, 16384, true, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
          {&C::magic, {"magic", "1: quotients by multiply and shift (the default), 0: divisions", 0, 1, false, -1}},
      }),
      checkSchedule, searchSpace);
  return schedule;
}

} // namespace tk::kernels::moe
