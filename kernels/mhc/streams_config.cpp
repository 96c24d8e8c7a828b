//===- streams_config.cpp - the n-stream kernels' keys and schedules -------===//
//
// Apart from the DSL programs: what a call needs to name and schedule its
// kernel, without the DSL (a runtime that only loads bundled kernels links
// this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/mhc/streams.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace tk::kernels::mhc {

const char *streamOpName(StreamOp op) {
  switch (op) {
  case StreamOp::ExpandFwd:
    return "expand_to_mhc_fwd";
  case StreamOp::ExpandBwd:
    return "expand_to_mhc_bwd";
  case StreamOp::ApplyMixFwd:
    return "mhc_pre_apply_mix_fwd";
  case StreamOp::ApplyMixBwd:
    return "mhc_pre_apply_mix_bwd";
  case StreamOp::PostFwd:
    return "mhc_post_fwd";
  case StreamOp::PostBwd:
    return "mhc_post_bwd";
  case StreamOp::PreBigFuseApply:
    return "mhc_pre_big_fuse";
  case StreamOp::MultilayerRecompute:
    return "mhc_multilayer_recompute";
  }
  return "?";
}

bool sumsOverHidden(StreamOp op) { return op == StreamOp::ApplyMixBwd || op == StreamOp::PostBwd; }

int64_t chunkColumns(int64_t hidden, int64_t most) {
  for (int64_t c = most; c >= 32; c /= 2)
    if (hidden % c == 0)
      return c;
  if (hidden >= 256) // no such factor: chunks of 256, the last one partial
    return std::min<int64_t>(most, 256);
  return std::min<int64_t>(most, (int64_t)llvm::PowerOf2Ceil(std::max<int64_t>(1, hidden)));
}

int64_t sumAccessBytes(const StreamConfig &c) {
  return std::clamp<int64_t>(2 * c.tileRows() * c.tileCols() / c.numThreads(), 4, 16);
}

int64_t streamRowAlignBytes(int64_t hidden) { return hidden % 8 == 0 ? 16 : hidden % 4 == 0 ? 8 : hidden % 2 ? 2 : 4; }

int64_t StreamConfig::tileCols() const {
  if (cols)
    return cols;
  if (op == StreamOp::MultilayerRecompute) // a divisor of H: its 2-D views have no bound between the streams
    return std::min<int64_t>(1024, (int64_t)(hidden & -hidden));
  // Sums over H carry (n + 1) n per-thread partials (post bwd: 20 at n = 4)
  // across the chunks: 256 columns keep them at 2 per thread.
  return chunkColumns(hidden, sumsOverHidden(op) ? 256 : 1024);
}

int64_t StreamConfig::tileRows() const {
  if (rows)
    return rows;
  // Tiles of 1024 elements: a short chunk (H = 1280: 256) takes 4 tokens.
  return sumsOverHidden(op) ? 1 : std::max<int64_t>(1, 1024 / tileCols());
}

int64_t StreamConfig::numThreads() const {
  if (threads)
    return threads;
  const int64_t perThread = sumsOverHidden(op) ? 2 : 8; // 8 bf16: one 16-byte access
  return std::clamp<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(1, tileRows() * tileCols() / perThread)), 32, 256);
}

std::string StreamConfig::key() const {
  const std::string schedule = streamSchedule(op).spec().print(*this);
  return std::string(streamOpName(op)) + ":n=" + std::to_string(streams) + ",H=" + std::to_string(hidden) +
         (accumulate ? ",acc" : "") + (pdl ? ",pdl=" + std::to_string(pdl) : "") +
         (op == StreamOp::MultilayerRecompute ? ",L=" + std::to_string(layers) + ",Lp=" + std::to_string(postLayers)
                                              : "") +
         (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const StreamConfig &c) {
  if (c.tileRows() * c.tileCols() % c.numThreads())
    return "rows x cols must be a multiple of threads";
  if (c.tileRows() * c.tileCols() / c.numThreads() > 32)
    return "rows x cols must be at most 32 elements per thread";
  if (c.stages && !sumsOverHidden(c.op))
    return "stages is for the kernels that sum over H (the backward of apply_mix and post)";
  if (c.op == StreamOp::MultilayerRecompute && c.hidden % c.tileCols() != 0)
    return "cols must divide H (the multilayer kernel's chunks may not straddle two streams)";
  if (c.tileCols() > (int64_t)llvm::PowerOf2Ceil(std::max<int64_t>(1, c.hidden)))
    return "cols must be at most H's power-of-two ceiling";
  return "";
}

static std::vector<std::string> searchSpace(const StreamConfig &c, const compiler::Target &) {
  if (sumsOverHidden(c.op))
    return everyCombination(
        {{"rows", {1, 2}}, {"cols", {256, 512}}, {"threads", {64, 128, 256}}, {"stages", {2, 3, 4}}});
  return everyCombination({{"rows", {1, 2, 4}}, {"cols", {256, 512, 1024}}, {"threads", {64, 128, 256}}});
}

const OperatorSchedule<StreamConfig> &streamSchedule(StreamOp op) {
  using C = StreamConfig;
  auto make = [](StreamOp o) {
    return OperatorSchedule<C>(
        streamOpName(o), std::string("tk_") + streamOpName(o),
        ScheduleSpec<C>({
            {&C::rows, {"rows", "tokens per CTA", 1, 64, false, 0}},
            {&C::cols, {"cols", "columns of H per tile (a power of two)", 32, 4096, true, 0}},
            {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
            {&C::stages, {"stages", "versions of the shared chunks (sums over H)", 2, 6, false, 0}},
        }),
        checkSchedule, searchSpace);
  };
  static const OperatorSchedule<C> schedules[] = {make(StreamOp::ExpandFwd),       make(StreamOp::ExpandBwd),
                                                  make(StreamOp::ApplyMixFwd),     make(StreamOp::ApplyMixBwd),
                                                  make(StreamOp::PostFwd),         make(StreamOp::PostBwd),
                                                  make(StreamOp::PreBigFuseApply), make(StreamOp::MultilayerRecompute)};
  return schedules[(int)op];
}

} // namespace tk::kernels::mhc
