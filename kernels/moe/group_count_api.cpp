//===- group_count_api.cpp - tk_group_count, tk_aux_fi --------------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "kernels/moe/histogram.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Scratch.h"

#include <algorithm>
#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::moe;

namespace {

constexpr int64_t kMaxBins = 4096; ///< the shared histogram: 16 KB of i32 bins

HistogramConfig stage(HistogramConfig::Stage s, int64_t groups = 0) {
  HistogramConfig c;
  c.stage = s;
  // At least 1024 bins, so that every thread of a CTA holds some while the histogram is zeroed and flushed; the
  // table (counting by rows) keeps those that can count something.
  c.width = std::max<int64_t>(128, (groups + 127) / 128 * 128);
  c.bins = std::max<int64_t>(1024, c.width);
  return c;
}

/// The counting kernel's config with its schedule resolved (which also says whether the call counts by rows).
Status resolveCounting(tk_context ctx, const tk::compiler::Target &target, int64_t groups, HistogramConfig &counting) {
  counting = stage(HistogramConfig::Stage::Count, groups);
  return histogramSchedule().resolve(ctx, target, counting);
}

/// Counts the ids into the rows of a scratch table (each block its row, every bin), then sums its columns into
/// `out`: the counts (G) i32, or with `slots` = N Ka > 0 aux_fi's frequencies (E) f32. The schedule of `counting`
/// (resolved) shapes the rows' kernel.
Status countByRows(tk_context ctx, const HistogramConfig &counting, const tk_tensor *ids, const tk_tensor *out,
                   int64_t slots, tk_stream stream) {
  const int64_t groups = out->shape[0], n = numElements(ids);
  HistogramConfig rows = counting, sums = stage(HistogramConfig::Stage::RowSums, groups);
  rows.stage = HistogramConfig::Stage::Rows, rows.table = 0;
  sums.pdl = counting.pdl;
  sums.frequency = slots > 0;
  const int64_t blocks = (n + rows.tileElements() - 1) / rows.tileElements();
  tk::runtime::Scratch scratch;
  // No id: one row of zeros to sum (a kernel's tensors may not be empty).
  Status s = scratch.allocateOnStream(ctx, *out, (size_t)(std::max<int64_t>(blocks, 1) * rows.width * 4), stream);
  if (s.isOk() && blocks == 0)
    s = scratch.zeroOnStream(stream);
  if (!s.isOk())
    return s;
  tk_tensor table = scratch.tensor(TK_I32, std::max<int64_t>(blocks, 1), rows.width), cells = table, sum = *out;
  cells.ndim = 1, cells.shape[0] = blocks * rows.width, cells.strides[0] = 1;
  sum.ndim = 2, sum.shape[0] = 1, sum.shape[1] = groups, sum.strides[0] = groups, sum.strides[1] = 1;
  // Made once, for prepare and the runs: these calls take a few µs, their factories' keys a part of it.
  const std::vector<tk::runtime::KernelFactory> kernels = {tk::runtime::factoryOf(TK_PROGRAM(buildHistogram), rows),
                                                           tk::runtime::factoryOf(TK_PROGRAM(buildHistogram), sums)};
  if (blocks > 0) {
    ctx->prepare(kernels, {ids, out});
    tk_tensor flat = flatView(ids);
    s = ctx->run(kernels[0], {&flat, &cells}, stream, {groups});
  }
  if (s.isOk())
    s = ctx->run(kernels[1], {&table, &sum}, stream,
                 slots > 0 ? std::vector<int64_t>{groups, slots} : std::vector<int64_t>{});
  return s;
}

/// Counts the ids (N, K) into `counts` (G) i32 as `counting`'s resolved
/// schedule says: by rows, or zeroed and counted with atomics (the zeroing
/// kernel's schedule resolved before the first kernel writes).
Status count(tk_context ctx, const tk::compiler::Target &target, const HistogramConfig &counting, const tk_tensor *ids,
             const tk_tensor *counts, tk_stream stream) {
  if (counting.table)
    return countByRows(ctx, counting, ids, counts, 0, stream);
  HistogramConfig zero = stage(HistogramConfig::Stage::Zero);
  Status s = histogramSchedule().resolve(ctx, target, zero);
  if (!s.isOk())
    return s;
  zero.pdl = counting.pdl;
  const std::vector<tk::runtime::KernelFactory> kernels = {
      tk::runtime::factoryOf(TK_PROGRAM(buildHistogram), zero),
      tk::runtime::factoryOf(TK_PROGRAM(buildHistogram), counting)};
  if (numElements(ids) > 0)
    ctx->prepare(kernels, {ids, counts});
  s = ctx->run(kernels[0], {counts}, stream);
  if (!s.isOk() || numElements(ids) == 0)
    return s;
  tk_tensor flat = flatView(ids);
  return ctx->run(kernels[1], {&flat, counts}, stream, {counts->shape[0]});
}

/// The ids are counted in i32 positions of one flat range.
bool countable(Arguments &args) {
  return args.require(args["N"] * args["K"] <= std::numeric_limits<int32_t>::max(),
                      "N x K = " + std::to_string(args["N"] * args["K"]) + " ids exceed the kernels' i32 range");
}

} // namespace

static tk_status tk_group_count_unguarded(tk_context ctx, const tk_tensor *group_idx, int32_t num_groups,
                                          tk_tensor *counts, tk_stream stream) {
  Arguments args("tk_group_count");
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("group_idx", group_idx, {"N", "K"}, {TK_I64}, Layout::Contiguous);
  args.require(num_groups >= 1 && num_groups <= kMaxBins,
               "num_groups must be in [1, " + std::to_string(kMaxBins) + "], got " + std::to_string(num_groups));
  if (args.ok()) {
    args.define("G", num_groups, "num_groups");
    args.tensor("counts", counts, {"G"}, {TK_I32}, Layout::Contiguous);
  }
  if (!args.ok())
    return tk::runtime::report(args.status());
  if (!countable(args))
    return tk::runtime::report(args.status());
  // Where both tensors live, checked before the first kernel zeroes the counts.
  tk::compiler::Target target;
  if (Status s = ctx->targetFor({group_idx, counts}, target); !s.isOk())
    return tk::runtime::report(s);
  if (Status s = checkIndicesIfAsked(ctx, "tk_group_count", "group_idx", group_idx, -1, num_groups, "num_groups", stream); !s.isOk())
    return tk::runtime::report(s);
  HistogramConfig counting;
  Status s = resolveCounting(ctx, target, num_groups, counting);
  return tk::runtime::report(s.isOk() ? count(ctx, target, counting, group_idx, counts, stream) : s);
}

extern "C" tk_status tk_group_count(tk_context ctx, const tk_tensor *group_idx, int32_t num_groups, tk_tensor *counts,
                                    tk_stream stream) {
  return tk::kernels::guardCall("tk_group_count", {{"group_idx", group_idx}}, {{"counts", counts}},
                                [&] { return tk_group_count_unguarded(ctx, group_idx, num_groups, counts, stream); });
}

static tk_status tk_aux_fi_unguarded(tk_context ctx, const tk_tensor *topk_idx, int32_t num_experts,
                                     int32_t num_aux_topk, tk_tensor *fi, tk_stream stream) {
  Arguments args("tk_aux_fi");
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("topk_idx", topk_idx, {"N", "K"}, {TK_I64}, Layout::Contiguous);
  args.require(num_experts >= 1 && num_experts <= kMaxBins,
               "num_experts must be in [1, " + std::to_string(kMaxBins) + "], got " + std::to_string(num_experts));
  args.require(num_aux_topk >= 1, "num_aux_topk must be at least 1, got " + std::to_string(num_aux_topk));
  if (args.ok()) {
    args.define("E", num_experts, "num_experts");
    args.tensor("fi", fi, {"E"}, {TK_F32}, Layout::Contiguous);
  }
  if (!args.ok() || !countable(args))
    return tk::runtime::report(args.status());
  tk::compiler::Target target;
  if (Status s = ctx->targetFor({topk_idx, fi}, target); !s.isOk())
    return tk::runtime::report(s);
  if (Status s = checkIndicesIfAsked(ctx, "tk_aux_fi", "topk_idx", topk_idx, -1, num_experts, "num_experts", stream); !s.isOk())
    return tk::runtime::report(s);
  const int64_t n = args["N"];
  if (n == 0) { // no token: fi = 0 (the spec's), not 0 / 0
    tk_tensor bits = bitsView(fi);
    return tk::runtime::report(runScheduled(ctx, histogramSchedule(), TK_PROGRAM(buildHistogram),
                                            stage(HistogramConfig::Stage::Zero), {&bits}, stream));
  }
  HistogramConfig counting;
  Status s = resolveCounting(ctx, target, num_experts, counting);
  if (s.isOk() && counting.table) // the rows' column sums turned into floats by their kernel
    return tk::runtime::report(countByRows(ctx, counting, topk_idx, fi, n * num_aux_topk, stream));
  // The counts are exact integers in scratch memory, turned into floats by a third kernel.
  tk::runtime::Scratch scratch;
  if (s.isOk())
    s = scratch.allocateOnStream(ctx, *fi, (size_t)num_experts * 4, stream);
  if (!s.isOk())
    return tk::runtime::report(s);
  tk_tensor counts = scratch.tensor(TK_I32, num_experts, 1);
  counts.ndim = 1;
  HistogramConfig frequency = stage(HistogramConfig::Stage::Frequency);
  frequency.pdl = counting.pdl;
  if ((s = count(ctx, target, counting, topk_idx, &counts, stream)).isOk())
    s = runScheduled(ctx, histogramSchedule(), TK_PROGRAM(buildHistogram), frequency, {&counts, fi}, stream,
                     {num_experts, n * num_aux_topk});
  return tk::runtime::report(s);
}

extern "C" tk_status tk_aux_fi(tk_context ctx, const tk_tensor *topk_idx, int32_t num_experts, int32_t num_aux_topk,
                               tk_tensor *fi, tk_stream stream) {
  return tk::kernels::guardCall("tk_aux_fi", {{"topk_idx", topk_idx}}, {{"fi", fi}}, [&] {
    return tk_aux_fi_unguarded(ctx, topk_idx, num_experts, num_aux_topk, fi, stream);
  });
}

TK_REGISTER_OPERATORS(group_count) {
  using S = HistogramConfig::Stage;
  auto variant = [](const std::string &name, S s, int64_t groups, bool frequency = false) {
    HistogramConfig c = stage(s, groups);
    c.frequency = frequency;
    return KernelVariant{name, scheduledFactory(histogramSchedule(), TK_PROGRAM(buildHistogram), c)};
  };
  registerSchedule(histogramSchedule());
  registerOperator({"group_count",
                    "moe",
                    "tk_group_count",
                    "counts of the ids in [0, G): shared-memory histograms added into the counts with integer atomics",
                    {variant("group_count.zero", S::Zero, 0), variant("group_count.bins1024", S::Count, 72),
                     variant("group_count.bins4096", S::Count, 4096), variant("group_count.rows.g72", S::Rows, 72),
                     variant("group_count.sums.g72", S::RowSums, 72)}});
  registerOperator(
      {"aux_fi",
       "moe",
       "tk_aux_fi",
       "expert frequencies c_e E / (N Ka) from exact integer counts",
       {variant("aux_fi.frequency", S::Frequency, 0), variant("aux_fi.sums.e256", S::RowSums, 256, true)}});
}
