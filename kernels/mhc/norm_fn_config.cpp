//===- norm_fn_config.cpp - mhc_pre_norm_fn's keys and schedules ----------===//
//
// Apart from the DSL programs (norm_fn.cpp): what a call needs to name and
// schedule its kernels, without the DSL.
//===----------------------------------------------------------------------===//
#include "kernels/mhc/norm_fn.h"

namespace tk::kernels::mhc {

int64_t NormFnConfig::numChunk() const {
  if (chunk)
    return chunk;
  int64_t c = stage == NormFnStage::Slab || stage == NormFnStage::Forward ? 64 : 128;
  while (c > 8 && width % c != 0)
    c /= 2;
  return c;
}

// The forward's default, 128 tokens x 64 columns x 256 threads, 2 stages, 8 splits, was the H200's fastest at
// 8192 x 4 x 7168 (docs/mhc_kernels.md): 8 warps of 16 rows each run tile.dot from registers, and the splits put
// more CTAs and bytes in flight per SM.
int64_t NormFnConfig::numSplits() const {
  if (splits || stage != NormFnStage::Forward)
    return splits ? splits : 1;
  for (int64_t s : {8, 4, 2})
    if ((width / numChunk()) % s == 0)
      return s;
  return 1;
}

std::string NormFnConfig::key() const {
  if (stage == NormFnStage::Finish) // its tile is its own; the splits' count shapes its inputs
    return "mhc_pre_norm_fn_fwd_finish:G=" + std::to_string(width) + ",S=" + std::to_string(numSplits()) +
           (pdl >= 0 ? ",pdl=" + std::to_string(pdl) : "");
  const bool backward = stage != NormFnStage::Forward;
  const std::string schedule = normFnSchedule(backward).spec().print(*this);
  const char *name = stage == NormFnStage::Forward ? "mhc_pre_norm_fn_fwd"
                     : stage == NormFnStage::Norm  ? "mhc_pre_norm_fn_bwd_norm"
                                                   : "mhc_pre_norm_fn_bwd";
  return std::string(name) + ":G=" + std::to_string(width) + (weighted ? ",w" : "") +
         (accumulate && stage == NormFnStage::Slab ? ",acc" : "") + (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const NormFnConfig &c) {
  if (c.numTokens() % 16 != 0)
    return "tokens must be a multiple of 16 (the MMA's M)";
  if (c.numChunk() % 8 != 0 || c.width % c.numChunk() != 0)
    return "chunk must be a multiple of 8 dividing G = " + std::to_string(c.width);
  if (c.numTokens() * c.numChunk() > 64 * c.numThreads())
    return "tokens x chunk must be at most 64 elements per thread";
  if (c.width % (c.numChunk() * c.numSplits()) != 0)
    return "splits x chunk must divide G = " + std::to_string(c.width);
  if (c.stage != NormFnStage::Forward && (c.numStages() != 1 || c.numSplits() != 1 || c.blocks || c.wgmma != -1))
    return "stages, splits, blocks and wgmma are the forward's";
  return "";
}

static std::vector<std::string> searchSpace(const NormFnConfig &c, const compiler::Target &t) {
  if (c.stage == NormFnStage::Forward) {
    // Pipelines whose versions of the x and fn chunks, beside the product's own staging of both (about the same
    // again), would pass the target's shared memory are left out. One warp (32 threads) takes fn's chunk as the
    // tensor core's b registers, staging nothing.
    std::vector<std::string> fit;
    for (const std::string &s : everyCombination({{"tokens", {32, 64, 128, 256}},
                                                  {"chunk", {32, 64, 128}},
                                                  {"threads", {32, 128, 256}},
                                                  {"stages", {1, 2, 3}},
                                                  {"splits", {1, 2, 4, 8}}})) {
      NormFnConfig v = c;
      if (!normFnSchedule(false).spec().parse(s, v).empty())
        continue;
      const int64_t chunkBytes = v.numTokens() * v.numChunk() * 2 + kNormFnMaxMixes * v.numChunk() * 4;
      if ((v.numStages() > 1 ? v.numStages() + 1 : 1) * chunkBytes <= t.maxSharedBytes)
        fit.push_back(s);
    }
    return fit;
  }
  return everyCombination({{"tokens", {16, 32, 64}}, {"chunk", {32, 64, 128}}, {"threads", {128, 256}}});
}

const OperatorSchedule<NormFnConfig> &normFnSchedule(bool backward) {
  using C = NormFnConfig;
  auto make = [](const char *name, bool backward) {
    std::vector<ScheduleSpec<C>::Entry> fields = {
        {&C::tokens,
         {"tokens", "tokens per CTA (forward) or per step (backward), a multiple of 16", 16, 256, false, 0}},
        {&C::chunk, {"chunk", "G columns per step (forward) or per CTA (backward), dividing G", 8, 1024, false, 0}},
        {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
        {&C::stages,
         {"stages", "forward: chunks in flight through shared memory (1: loads in the loop)", 1, 4, false, 0}},
        {&C::splits, {"splits", "forward: CTAs sharing a row block's G, their sums added in order", 1, 64, false, 0}},
        {&C::blocks,
         {"blocks", "forward: CTAs per SM its registers must allow (launch bounds; unset: 2)", 1, 32, false, 0}},
        {&C::wgmma,
         {"wgmma",
          "forward: the product as wgmma on sm_90a, fn's chunk read from shared memory by the tensor "
          "core (1, the default) or mma.sync (0)",
          0, 1, false, -1}},
    };
    if (!backward)
      fields.push_back({&C::pdl, dependentLaunchField()});
    return OperatorSchedule<C>(
        name, std::string("tk_") + name, ScheduleSpec<C>(fields), checkSchedule, searchSpace, [](C &) {},
        // The backward's per-token kernel takes its heuristic; the schedule is the slab kernel's.
        [](const C &c) { return c.stage == NormFnStage::Norm || c.stage == NormFnStage::Finish; });
  };
  static const OperatorSchedule<C> forward = make("mhc_pre_norm_fn_fwd", false),
                                   back = make("mhc_pre_norm_fn_bwd", true);
  return backward ? back : forward;
}

} // namespace tk::kernels::mhc
