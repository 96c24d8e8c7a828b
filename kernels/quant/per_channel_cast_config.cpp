//===- per_channel_cast_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (per_channel_cast.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/quant/per_channel_cast.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

namespace tk::kernels::quant {

using namespace tk::dsl;

std::string PerChannelCastConfig::kernelName() const {
  if (swiglu)
    return transposed ? "swiglu_forward_and_per_channel_cast_and_transpose" : "swiglu_forward_and_per_channel_cast";
  return transposed ? "per_channel_cast_and_transpose" : "per_channel_cast";
}

std::string PerChannelCastConfig::key() const {
  std::string schedule = perChannelCastSchedule().spec().print(*this);
  return kernelName() + ":K=" + std::to_string(hidden) + (clamp ? ",clampbits=" + std::to_string(bits(*clamp)) : "") +
         (rowGather ? ",gather" : "") + ",b=" + std::to_string(blockM) + ",in=" + name(in) +
         ",round=" + std::to_string(roundSf) + ",xalign=" + std::to_string(xAlignBytes) +
         ",outalign=" + std::to_string(outAlignBytes) + (schedule.empty() ? "" : "|" + schedule);
}

int64_t PerChannelCastConfig::stages() const {
  if (pipelineStages >= 0)
    return pipelineStages;
  const int64_t wanted = rowGather ? 0 : oneStagedTile() ? 1 : swiglu && (!transposed || transposedB128()) ? 2 : 0;
  return std::min<int64_t>(wanted, kPipelineSharedBytes / stageBytes());
}

/// What the kernel needs of a schedule beyond each field's range.
static std::string checkSchedule(const PerChannelCastConfig &c) {
  if (c.tileRows && c.tileRows % c.blockM)
    return "rows must be a multiple of b = " + std::to_string(c.blockM) + ", got " + std::to_string(c.tileRows);
  if (c.tileCols && c.tileCols % 16)
    return "cols must be a multiple of 16, got " + std::to_string(c.tileCols);
  if (c.tileCols && c.in == DType::F8E4M3 && c.tileCols % 128 && 128 % c.tileCols)
    return "with a quantized input (one multiplier per 128 channels) cols must divide 128 or be a multiple of it";
  if ((c.pipelineStages >= 0 || c.tilesPerBlock) && c.rowGather)
    return "the row gather (data-dependent rows) has no pipeline";
  if (c.stages() * c.stageBytes() > kPipelineSharedBytes)
    return std::to_string(c.stages()) + " stages of " + std::to_string(c.stageBytes()) + " bytes exceed the " +
           std::to_string(kPipelineSharedBytes) + " bytes a pipeline may take";
  return "";
}

/// Around the heuristic's tile: its neighbours in rows, columns and threads,
/// and the pipeline's depth where there is one.
static std::vector<std::string> searchSpace(const PerChannelCastConfig &c, const compiler::Target &) {
  const int64_t m = c.tileM(), k = c.tileK(), t = c.numThreads();
  std::vector<std::string> out;
  auto tile = [&](int64_t rows, int64_t cols, int64_t threads) {
    out.push_back("rows=" + std::to_string(rows) + ",cols=" + std::to_string(cols) +
                  ",threads=" + std::to_string(threads));
  };
  tile(m, k, t * 2);
  if (t > 64)
    tile(m, k, t / 2);
  tile(m, k * 2, t * 2);
  if (k >= 32)
    tile(m, k / 2, std::max<int64_t>(32, t / 2));
  if (c.transposed)
    for (int64_t rows : {4, 8, 16})
      if (rows != c.transposeRowsPerThread())
        out.push_back("trows=" + std::to_string(rows));
  if (c.stages() > 0)
    for (const char *p : {"stages=2,tiles=4", "stages=3,tiles=8", "stages=2,tiles=16"})
      out.push_back(p);
  return out;
}

/// The row gather has no pipeline; trows shapes transposed tiles only;
/// stages are as many as fit.
static void leaveAside(PerChannelCastConfig &c) {
  if (c.rowGather)
    c.pipelineStages = -1, c.tilesPerBlock = 0;
  if (!c.transposed)
    c.transposeRows = 0;
  c.pipelineStages = stagesThatFit(c.pipelineStages, c.stageBytes());
}

const OperatorSchedule<PerChannelCastConfig> &perChannelCastSchedule() {
  using C = PerChannelCastConfig;
  static const OperatorSchedule<C> schedule(
      "per_channel_cast",
      "tk_per_channel_cast, tk_per_channel_cast_fused, tk_per_channel_cast_and_transpose, "
      "tk_swiglu_forward_and_per_channel_cast_and_transpose",
      ScheduleSpec<C>({
          {&C::tileRows, {"rows", "rows of the CTA's tile (a multiple of b)", 32, 1024, false, 0}},
          {&C::tileCols, {"cols", "columns of the CTA's tile (a multiple of 16)", 16, 1024, false, 0}},
          {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
          {&C::accessBytes, {"access", "each thread's widest global access, bytes", 4, 16, true, 0}},
          {&C::reload,
           {"reload", "read the input again for the cast (1) or keep it in registers (0)", 0, 1, false, -1}},
          {&C::rereadIndex, {"reread", "loops read the thread index again (1) or not (0)", 0, 1, false, -1}},
          {&C::transposeRows, {"trows", "rows per thread of the transposed tile", 4, 16, true, 0}},
          {&C::pipelineStages, {"stages", "pipeline stages (0: one tile per CTA, in registers)", 0, 8, false, -1}},
          {&C::tilesPerBlock, {"tiles", "row tiles each CTA walks", 1, 64, false, 0}},
      }),
      checkSchedule, searchSpace, leaveAside);
  return schedule;
}

} // namespace tk::kernels::quant
