//===- swiglu_per_token_cast_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (swiglu_per_token_cast.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/quant/swiglu_per_token_cast.h"
#include <cmath>
#include <numeric>
#include <vector>

namespace tk::kernels::quant {

using namespace tk::dsl;

int64_t SwigluPerTokenCastConfig::tileK() const {
  return group == hidden ? hidden : std::max<int64_t>(group, std::gcd<int64_t>(2048, hidden));
}

int64_t SwigluPerTokenCastConfig::tileM() const { return tileRows ? tileRows : 4096 % tileK() ? 1 : 4096 / tileK(); }

static std::string checkSchedule(const SwigluPerTokenCastConfig &c) {
  if (c.countingBlocksPerSm && !c.countClamps)
    return "count_blocks is for the kernel that counts clamps";
  return "";
}

/// count_blocks shapes the kernel that counts clamps only.
static void leaveAside(SwigluPerTokenCastConfig &c) {
  if (!c.countClamps)
    c.countingBlocksPerSm = 0;
}

/// Rows per tile and threads around the heuristic's; the counting grid persistent.
static std::vector<std::string> searchSpace(const SwigluPerTokenCastConfig &c, const compiler::Target &) {
  std::vector<std::string> out;
  const int64_t m = c.tileM();
  for (auto [rows, threads] : {std::pair{m, int64_t(128)}, std::pair{m, int64_t(512)}, std::pair{m * 2, int64_t(256)},
                               std::pair{std::max<int64_t>(1, m / 2), int64_t(128)}})
    if (rows <= 64)
      out.push_back("rows=" + std::to_string(rows) + ",threads=" + std::to_string(threads));
  if (c.countClamps)
    out.push_back("count_blocks=4");
  return out;
}

const OperatorSchedule<SwigluPerTokenCastConfig> &swigluPerTokenSchedule() {
  using C = SwigluPerTokenCastConfig;
  static const OperatorSchedule<C> schedule(
      "swiglu_forward_and_per_token_cast", "tk_swiglu_forward_and_per_token_cast",
      ScheduleSpec<C>({
          {&C::tileRows, {"rows", "rows per tile", 1, 64, true, 0}},
          {&C::threadCount, {"threads", "threads per block", 32, 1024, true, 0}},
          {&C::countingBlocksPerSm,
           {"count_blocks",
            "the kernel that counts clamps on a persistent grid of this many blocks per SM (unset: a block per tile)",
            1, 32, false, 0}},
      }),
      checkSchedule, searchSpace, leaveAside);
  return schedule;
}

std::string SwigluPerTokenCastConfig::key() const {
  const std::string schedule = swigluPerTokenSchedule().spec().print(*this);
  auto bitsOf = [](float f) { return std::to_string(bits(f)); };
  return "swiglu_forward_and_per_token_cast:H=" + std::to_string(hidden) + ",g=" + std::to_string(group) +
         ",in=" + name(in) + ",round=" + std::to_string(roundSf) + (packedSf ? ",ue8m0" : "") +
         (weights ? ",weights" : "") + (expertMask ? ",experts" : "") + (clamp ? ",clampbits=" + bitsOf(*clamp) : "") +
         (countClamps ? ",count" : "") + ",sfclamp=" + std::to_string(sfClampBits) +
         ",xalign=" + std::to_string(xAlignBytes) + ",outalign=" + std::to_string(outAlignBytes) +
         (wholeTiles ? ",whole" : "") + (schedule.empty() ? "" : "|" + schedule);
}

} // namespace tk::kernels::quant
