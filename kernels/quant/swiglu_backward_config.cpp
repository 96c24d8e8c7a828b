//===- swiglu_backward_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (swiglu_backward.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/quant/swiglu_backward.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace tk::kernels::quant {

using namespace tk::dsl;

std::string SwigluBackwardConfig::key() const {
  const std::string schedule = swigluBackwardSchedule().spec().print(*this);
  return "swiglu_backward_and_per_token_cast:H=" + std::to_string(hidden) + ",g=" + std::to_string(group) +
         ",round=" + std::to_string(roundSf) + (clamp ? ",clampbits=" + std::to_string(bits(*clamp)) : "") +
         ",xalign=" + std::to_string(xAlignBytes) + ",galign=" + std::to_string(gradAlignBytes) +
         ",outalign=" + std::to_string(outAlignBytes) + (schedule.empty() ? "" : "|" + schedule);
}

std::string SwigluBackwardConfig::tileError() const {
  if (hidden <= 0 || group <= 0 || hidden % group)
    return "H = " + std::to_string(hidden) + " must be a positive multiple of g = " + std::to_string(group);
  const int64_t c = chunk(), t = numThreads();
  if (c <= 0 || hidden % c || c % group)
    return "the chunk of " + std::to_string(c) + " columns must divide H = " + std::to_string(hidden) +
           " and be a multiple of g = " + std::to_string(group);
  if (t < 32 || t > 1024 || (t & (t - 1)))
    return "threads must be a power of two from 32 to 1024, got " + std::to_string(t);
  return "";
}

int64_t SwigluBackwardConfig::chunk() const {
  if (chunkCols)
    return chunkCols;
  for (int64_t c : {1024, 512, 256, 128})
    if (hidden % c == 0)
      return c;
  return hidden; // H = 32 x odd (g = 32): whole rows
}

int64_t SwigluBackwardConfig::numThreads() const {
  if (threads)
    return threads;
  const int64_t c = chunk();
  if (c & (c - 1))
    return 256; // whole rows of 32 x odd columns
  return std::clamp<int64_t>(c / 8, 32, 1024);
}

int64_t SwigluBackwardConfig::stages() const {
  const int64_t wanted = pipelineStages >= 0 ? pipelineStages : 0;
  return std::min<int64_t>(wanted, kPipelineSharedBytes / stageBytes());
}

static std::string checkSchedule(const SwigluBackwardConfig &c) {
  if (std::string error = c.tileError(); !error.empty())
    return error;
  if (c.pipelineStages > 0 && c.pipelineStages * c.stageBytes() > kPipelineSharedBytes)
    return std::to_string(c.pipelineStages) + " stages of " + std::to_string(c.stageBytes()) + " bytes exceed the " +
           std::to_string(kPipelineSharedBytes) + " bytes a pipeline may take";
  return "";
}

/// Chunks of half and twice the heuristic's width; a pipeline down a chunk.
static std::vector<std::string> searchSpace(const SwigluBackwardConfig &c, const compiler::Target &) {
  std::vector<std::string> out;
  for (int64_t cols : {c.chunk() / 2, c.chunk() * 2})
    for (int64_t threads : {cols / 8, cols / 4})
      if (cols >= c.group && c.hidden % cols == 0 && threads >= 32 && threads <= 1024)
        out.push_back("cols=" + std::to_string(cols) + ",threads=" + std::to_string(threads));
  out.push_back("threads=" + std::to_string(std::min<int64_t>(1024, c.numThreads() * 2)));
  out.push_back("stages=2,rows=4");
  return out;
}

/// Stages are as many as fit.
static void leaveAside(SwigluBackwardConfig &c) { c.pipelineStages = stagesThatFit(c.pipelineStages, c.stageBytes()); }

const OperatorSchedule<SwigluBackwardConfig> &swigluBackwardSchedule() {
  using C = SwigluBackwardConfig;
  static const OperatorSchedule<C> schedule(
      "swiglu_backward_and_per_token_cast", "tk_swiglu_backward_and_per_token_cast",
      ScheduleSpec<C>({
          {&C::chunkCols, {"cols", "columns of each half per block (a multiple of g dividing H)", 32, 16384, false, 0}},
          {&C::threads, {"threads", "threads per block", 32, 1024, true, 0}},
          {&C::pipelineStages, {"stages", "pipeline stages down a chunk (0: one row per block)", 0, 8, false, -1}},
          {&C::tilesPerBlock, {"rows", "rows each block walks down its chunk", 1, 64, false, 0}},
      }),
      checkSchedule, searchSpace, leaveAside);
  return schedule;
}

std::string WeightGradConfig::key() const { return "chunks=" + std::to_string(chunks); }

} // namespace tk::kernels::quant
