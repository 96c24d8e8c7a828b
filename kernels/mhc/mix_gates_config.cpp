//===- mix_gates_config.cpp - the mix gates' groups, keys and schedules ----===//
//
// Apart from the DSL programs (mix_gates.cpp): what a call needs to name and
// schedule its kernels, without the DSL.
//===----------------------------------------------------------------------===//
#include "kernels/mhc/mix_gates.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace tk::kernels::mhc {

std::vector<MixGroup> mixGroups(MixGateKind kind, int64_t n) {
  if (kind == MixGateKind::Head)
    return {{MixGroup::Pre, 0, n, "out"}};
  return {{MixGroup::Pre, 0, n, "pre"}, {MixGroup::Post, n, n, "post"}, {MixGroup::Comb, 2 * n, n * n, "comb"}};
}

int64_t mixColumns(MixGateKind kind, int64_t n) { return kind == MixGateKind::Head ? n : 2 * n + n * n; }

std::string mixGateName(MixGateKind kind, bool backward) {
  return std::string(kind == MixGateKind::Head ? "mhc_head_compute_mix" : "mhc_pre_split_mixes") +
         (backward ? "_bwd" : "_fwd");
}

int64_t MixGateConfig::numRows() const {
  if (rows)
    return rows;
  return (int64_t)llvm::bit_floor((uint64_t)std::clamp<int64_t>(4096 / mixColumns(kind, streams), 1, 128));
}

std::string MixGateConfig::key() const {
  const std::string schedule = mixGateSchedule(kind, backward()).spec().print(*this);
  return mixGateName(kind, backward()) + (stage == MixGateStage::Reduce ? "_reduce" : "") +
         ":n=" + std::to_string(streams) + (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const MixGateConfig &c) {
  if (c.numRows() * mixColumns(c.kind, c.streams) > 64 * c.numThreads())
    return "rows x m (the logits' columns) must be at most 64 elements per thread";
  return "";
}

static std::vector<std::string> searchSpace(const MixGateConfig &, const compiler::Target &) {
  return everyCombination({{"rows", {32, 64, 128, 256}}, {"threads", {64, 128, 256}}});
}

const OperatorSchedule<MixGateConfig> &mixGateSchedule(MixGateKind kind, bool backward) {
  using C = MixGateConfig;
  auto make = [](MixGateKind kind, bool backward) {
    const std::string name = mixGateName(kind, backward);
    const ScheduleSpec<C>::Entry rows = {
        &C::rows,
        {"rows", "tokens per CTA (a power of two; the backward's partial sums: one per CTA)", 1, 1024, true, 0}};
    const ScheduleSpec<C>::Entry threads = {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}};
    return OperatorSchedule<C>(
        name, "tk_" + name,
        ScheduleSpec<C>(backward ? std::vector<ScheduleSpec<C>::Entry>{rows, threads, {&C::pdl, dependentLaunchField()}}
                                 : std::vector<ScheduleSpec<C>::Entry>{rows, threads}),
        checkSchedule, searchSpace, [](C &) {},
        // The backward's reduce kernel keeps its fixed order; the schedule is the main kernel's.
        [](const C &c) { return c.stage == MixGateStage::Reduce; });
  };
  static const OperatorSchedule<C> schedules[2][2] = {{make(MixGateKind::Split, false), make(MixGateKind::Split, true)},
                                                      {make(MixGateKind::Head, false), make(MixGateKind::Head, true)}};
  return schedules[kind == MixGateKind::Head][backward];
}

} // namespace tk::kernels::mhc
