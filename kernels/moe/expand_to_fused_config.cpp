//===- expand_to_fused_config.cpp - the config's key and declared schedule ---===//
//
// Apart from the DSL program (expand_to_fused.cpp): what a call needs to name and
// schedule its kernel, without the DSL (a runtime that only loads
// bundled kernels links this part alone).
//===----------------------------------------------------------------------===//
#include "kernels/moe/expand_to_fused.h"
#include <cstring>
#include <optional>

namespace tk::kernels::moe {

using namespace tk::dsl;

int64_t ExpandConfig::colsPerBlock() const {
  if (cols)
    return cols;
  int64_t c = 32;
  while (c < width && c < 2048)
    c *= 2;
  return c;
}

int64_t ExpandConfig::rowsPerBlock() const {
  if (rows)
    return rows;
  int64_t r = 8; // up to 32-byte chunks of the widest targets per thread
  while (r < 256 && r * std::max<int64_t>(1, std::min(width, colsPerBlock()) * byteSize(dtype) / 32) < numThreads())
    r *= 2;
  return r;
}

std::string ExpandConfig::key() const {
  const std::string schedule = expandSchedule().spec().print(*this);
  return std::string(pass == Pass::Copy ? "expand_to_fused" : "expand_to_fused_padding") + ":" + name(dtype) +
         ",W=" + std::to_string(width) + (pass == Pass::Copy ? ",K=" + std::to_string(topk) : "") +
         (colMajor ? ",colmajor" : "") + ",align=" + std::to_string(alignBytes) +
         (sfWidth ? ",sf=" + std::string(name(sfDtype)) + "x" + std::to_string(sfWidth) +
                        (sfColMajor ? ",colmajor" : "") + ",align=" + std::to_string(sfAlignBytes)
                  : "") +
         (schedule.empty() ? "" : "|" + schedule);
}

static std::string checkSchedule(const ExpandConfig &c) {
  if (c.skip && c.rowsPerBlock() != 1)
    return "skip needs one token per CTA (rows=1): the branch is the whole CTA's";
  if (c.padRows && !c.merged)
    return "pad_rows needs merged=1 (the padding kernel of two takes its tile's rows)";
  if (c.padRows % c.rowsPerBlock() || c.padRows / c.rowsPerBlock() > 64)
    return "pad_rows must be 1 to 64 times the rows per CTA (" + std::to_string(c.rowsPerBlock()) + "), got " +
           std::to_string(c.padRows);
  if (!c.rows && !c.cols && !c.threads)
    return ""; // the heuristic's tile (merged alone sets none of them)
  const int64_t perThread = c.rowsPerBlock() * std::min(c.colsPerBlock(), c.width) * byteSize(c.dtype) / c.numThreads();
  if (perThread > 256)
    return std::to_string(c.rowsPerBlock()) + " rows of " + std::to_string(c.colsPerBlock()) + " elements are " +
           std::to_string(perThread) + " bytes per thread, over 256";
  return "";
}

/// The tiles, each with the padding zeroed by a second kernel or in one kernel (merged; alone: the heuristic's tile),
/// and one token per CTA with empty slots skipped.
static std::vector<std::string> searchSpace(const ExpandConfig &c, const compiler::Target &) {
  const std::vector<std::string> tiles =
      everyCombination({{"rows", {1, 2, 4, 8, 16}}, {"cols", {512, 1024, 2048}}, {"threads", {128}}});
  std::vector<std::string> out = tiles;
  if (c.pass == ExpandConfig::Pass::Copy) {
    for (const std::string &t : tiles)
      out.push_back(t + ",merged=1");
    out.push_back("merged=1");
    // One token per CTA, its whole row, slots naming no position skipped (TileKernels' shape).
    for (const std::string &t :
         everyCombination({{"rows", {1}}, {"cols", {2048, 4096, 8192}}, {"threads", {64, 128}}, {"skip", {1}}}))
      out.insert(out.end(), {t, t + ",merged=1", t + ",merged=1,pad_rows=16"});
  }
  return out;
}

const OperatorSchedule<ExpandConfig> &expandSchedule() {
  using C = ExpandConfig;
  static const OperatorSchedule<C> schedule("expand_to_fused", "tk_expand_to_fused, tk_expand_to_fused_with_sf",
                                            ScheduleSpec<C>({
                                                {&C::rows, {"rows", "rows per CTA", 1, 256, true, 0}},
                                                {&C::cols, {"cols", "columns per CTA", 8, 8192, true, 0}},
                                                {&C::threads, {"threads", "threads per CTA", 32, 1024, true, 0}},
                                                {&C::merged,
                                                 {"merged",
                                                  "1: one kernel copies, zeroes the padding and moves with_sf's "
                                                  "scale factors (unset: two kernels, with_sf four)",
                                                  1, 1, false, 0}},
                                                {&C::skip,
                                                 {"skip",
                                                  "1 (rows=1): a slot naming no position skipped by a branch, its "
                                                  "stores too (unset: predicated off)",
                                                  1, 1, false, 0}},
                                                {&C::padRows,
                                                 {"pad_rows",
                                                  "merged: positions per padding CTA, a multiple of rows (unset: "
                                                  "rows)",
                                                  1, 4096, false, 0}},
                                            }),
                                            checkSchedule, searchSpace, [](C &c) {
                                              // The padding kernel is the same whatever the copy's merged fields.
                                              if (c.pass == C::Pass::ZeroPadding)
                                                c.merged = c.skip = c.padRows = 0;
                                            });
  return schedule;
}

} // namespace tk::kernels::moe
