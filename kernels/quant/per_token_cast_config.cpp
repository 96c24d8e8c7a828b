//===- per_token_cast_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (per_token_cast.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/quant/per_token_cast.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <vector>

namespace tk::kernels::quant {

using namespace tk::dsl;

int64_t PerTokenCastConfig::tileK() const {
  if (group == hidden)
    return hidden;
  int64_t k = std::max<int64_t>(group, std::gcd<int64_t>(4096, hidden));
  return quantizedInput() ? std::max(k, inBlockK) : k;
}

int64_t PerTokenCastConfig::tileM() const {
  if (tileRows > 0 && !quantizedInput())
    return tileRows;
  const int64_t elements = in == DType::BF16 ? 2048 : 4096;
  int64_t m = elements % tileK() ? 1 : elements / tileK();
  // A bf16 input's e2m1 output: its encode costs more instructions per value
  // than the load, and up to 8 rows (8192 elements) per block spread each
  // thread's fixed work over more values (the schedule's rows=8 on 32768x7168
  // g=32, 8 rows of 1024: 269.4 -> 244.6 us on the H200). At most 8 rows, so
  // narrow tiles (K = 576: 64 columns) keep their grid; f32 inputs, not
  // measured, keep theirs.
  if (in == DType::BF16 && out == Format::E2M1 && 8192 % tileK() == 0)
    m = std::max(m, std::min<int64_t>(8192 / tileK(), 8));
  // bf16 rows of 2048 to 8192 columns: two rows per block, not one (rows=2 on
  // the H200: e5m6 32768x7168 272 -> 239 us, 8001x2048 22.9 -> 21.6;
  // f32 rows, at twice the bytes, were slower with two).
  if (in == DType::BF16 && !quantizedInput() && m == 1 && 2 * tileK() <= 16384)
    m = 2;
  return quantizedInput() && inBlockM > 1 ? std::gcd(m, inBlockM) : m;
}

std::string PerTokenCastConfig::kernelName() const {
  switch (mode) {
  case PerTokenMode::Cast:
    return "per_token_cast";
  case PerTokenMode::SfOnly:
    return "per_token_cast_with_sf_only";
  case PerTokenMode::PrecomputedSf:
    return "per_token_cast_with_precomputed_sf";
  }
  return "?";
}

std::string PerTokenCastConfig::key() const {
  const std::string schedule = perTokenCastSchedule().spec().print(*this);
  return kernelName() + ":K=" + std::to_string(hidden) + ",g=" + std::to_string(group) + ",in=" + name(in) +
         (quantizedInput()
              ? ",inblock=" + std::to_string(inBlockM) + "x" + std::to_string(inBlockK) + (inPackedSf ? ",inue8m0" : "")
              : "") +
         ",round=" + std::to_string(roundSf) + ",xalign=" + std::to_string(xAlignBytes) +
         (xContiguous ? ",xcontig" : "") + ",outalign=" + std::to_string(outAlignBytes) +
         (out == Format::E2M1   ? ",out=e2m1"
          : out == Format::E5M6 ? ",out=e5m6"
                                : "") +
         (packedSf ? ",ue8m0" : "") + (schedule.empty() ? "" : "|" + schedule);
}

/// What the kernel needs of a schedule beyond each field's range.
static std::string checkSchedule(const PerTokenCastConfig &c) {
  const bool set = c.tileRows || c.persistentBlocksPerSm || c.pipelineStages || c.tilesPerBlock != 1;
  if (set && c.quantizedInput())
    return "a quantized input's kernel keeps its schedule (rows, persistent and the pipeline are for bf16 and f32 "
           "inputs)";
  if (c.tileRows * c.tileK() > 16384) // the kernel holds the whole tile in registers
    return std::to_string(c.tileRows) + " rows of " + std::to_string(c.tileK()) +
           " columns exceed 16384 elements per block";
  if (c.persistentBlocksPerSm && (c.pipelineStages || c.tilesPerBlock != 1))
    return "persistent and the pipeline (stages, tiles) are separate schedules: set one";
  if (c.pipelineStages * c.tileM() * c.tileK() * byteSize(c.in) > kPipelineSharedBytes)
    return std::to_string(c.pipelineStages) + " stages exceed the " + std::to_string(kPipelineSharedBytes) +
           " bytes a pipeline may take";
  if (c.out != Format::E5M6 && c.e5m6Run != 16)
    return "run is for an E5M6 output";
  return "";
}

/// Rows per block around the heuristic's, a persistent grid, a short pipeline.
static std::vector<std::string> searchSpace(const PerTokenCastConfig &c, const compiler::Target &) {
  if (c.quantizedInput())
    return {};
  std::vector<std::string> out;
  for (int64_t rows : {c.tileM() / 2, c.tileM() * 2, c.tileM() * 4})
    if (rows >= 1 && rows * c.tileK() <= 16384)
      out.push_back("rows=" + std::to_string(rows));
  out.push_back("persistent=4");
  out.push_back("stages=2,tiles=4");
  if (c.out == Format::E5M6)
    out.push_back("run=8");
  return out;
}

/// A quantized input's kernel has one schedule; run shapes E5M6 outputs
/// only; stages are as many as fit.
static void leaveAside(PerTokenCastConfig &c) {
  if (c.quantizedInput())
    c.tileRows = c.persistentBlocksPerSm = c.pipelineStages = 0, c.tilesPerBlock = 1;
  if (c.out != Format::E5M6)
    c.e5m6Run = 16;
  c.pipelineStages = stagesThatFit(c.pipelineStages, c.tileM() * c.tileK() * byteSize(c.in));
}

const OperatorSchedule<PerTokenCastConfig> &perTokenCastSchedule() {
  using C = PerTokenCastConfig;
  static const OperatorSchedule<C> schedule(
      "per_token_cast", "tk_per_token_cast, tk_per_token_cast_with_sf_only, tk_per_token_cast_with_precomputed_sf",
      ScheduleSpec<C>({
          {&C::tileRows, {"rows", "rows per block (the tile holds at most 16384 elements)", 1, 64, false, 0}},
          {&C::persistentBlocksPerSm, {"persistent", "a persistent grid of this many blocks per SM", 1, 32, false, 0}},
          {&C::pipelineStages, {"stages", "pipeline stages of the row tiles a block walks", 1, 8, false, 0}},
          {&C::tilesPerBlock, {"tiles", "row tiles each block walks (with stages)", 1, 64, false, 1}},
          {&C::e5m6Run, {"run", "values per thread along a row of E5M6 output", 8, 64, false, 16}},
      }),
      checkSchedule, searchSpace, leaveAside);
  return schedule;
}

} // namespace tk::kernels::quant
