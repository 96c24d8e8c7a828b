//===- fused_mapping_api.cpp - tk_get_fused_mapping -----------------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "kernels/moe/fused_mapping_kernels.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Scratch.h"

#include <cstring>
#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::moe;

namespace {

constexpr int64_t kMaxExperts = 1024;

tk_tensor rowView(const tk_tensor *t) { // (E) as (1, E)
  tk_tensor v = *t;
  v.ndim = 2, v.shape[0] = 1, v.shape[1] = t->shape[0], v.strides[0] = t->shape[0], v.strides[1] = 1;
  return v;
}

tk_tensor part(const tk_tensor &whole, int64_t offsetElements, std::vector<int64_t> shape) {
  tk_tensor v = whole;
  v.data = static_cast<char *>(whole.data) + offsetElements * 4;
  v.ndim = (int32_t)shape.size();
  int64_t stride = 1;
  for (int d = v.ndim - 1; d >= 0; --d)
    v.shape[d] = shape[d], v.strides[d] = stride, stride *= shape[d];
  return v;
}

/// Sum of the aligned segment lengths: expert_end[E - 1], read back after the stream's work.
Status readTotal(tk_context ctx, const tk_tensor *expertEnd, tk_stream stream, int64_t &total) {
  const int64_t last = expertEnd->shape[0] - 1;
  if (expertEnd->device == TK_DEVICE_CPU) { // the CPU path ran as it was called
    total = static_cast<const int32_t *>(expertEnd->data)[last];
    return Status::ok();
  }
  int32_t value = 0;
  Status s = ctx->readBack(reinterpret_cast<tk::runtime::CUdeviceptr>(expertEnd->data) + last * 4, 4, stream,
                           [&](const void *p) { std::memcpy(&value, p, 4); });
  total = value;
  return s;
}

} // namespace

static tk_status tk_get_fused_mapping_unguarded(tk_context ctx, const tk_tensor *topk_idx, int32_t num_experts,
                                                int32_t alignment, tk_tensor *pos_to_expert, tk_tensor *pos_to_token,
                                                tk_tensor *pos_to_token_topk, tk_tensor *token_topk_to_pos,
                                                tk_tensor *expert_start, tk_tensor *expert_end,
                                                tk_tensor *num_tokens_per_expert, int64_t *num_positions,
                                                tk_stream stream) {
  Arguments args("tk_get_fused_mapping");
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("topk_idx", topk_idx, {"N", "K"}, {TK_I64}, Layout::Contiguous);
  args.require(num_experts >= 1 && num_experts <= kMaxExperts,
               "num_experts must be in [1, " + std::to_string(kMaxExperts) + "], got " + std::to_string(num_experts));
  args.require(alignment >= 1, "alignment must be at least 1, got " + std::to_string(alignment));
  if (args.ok()) {
    args.define("E", num_experts, "num_experts");
    args.tensor("pos_to_expert", pos_to_expert, {"M"}, {TK_I32}, Layout::Contiguous);
    args.tensor("pos_to_token", pos_to_token, {"M"}, {TK_I32}, Layout::Contiguous);
    args.tensor("pos_to_token_topk", pos_to_token_topk, {"M"}, {TK_I32}, Layout::Contiguous);
    args.tensor("token_topk_to_pos", token_topk_to_pos, {"N", "K"}, {TK_I32}, Layout::Contiguous);
    args.tensor("expert_start", expert_start, {"E"}, {TK_I32}, Layout::Contiguous);
    args.tensor("expert_end", expert_end, {"E"}, {TK_I32}, Layout::Contiguous);
    args.tensor("num_tokens_per_expert", num_tokens_per_expert, {"E"}, {TK_I32}, Layout::Contiguous);
  }
  // Positions and flat slots are i32 (and so are the kernels' chunk bounds, up to 2^15 past F).
  if (args.ok()) {
    const int64_t slots = args["N"] * args["K"], bound = slots + (int64_t)num_experts * (alignment - 1);
    args.require(slots <= (int64_t(1) << 30), "N x K = " + std::to_string(slots) + " slots exceed 2^30");
    args.require(bound <= std::numeric_limits<int32_t>::max(),
                 "N x K + E (alignment - 1) = " + std::to_string(bound) + " may exceed the i32 positions");
    args.require(args["M"] <= std::numeric_limits<int32_t>::max(),
                 "M = " + std::to_string(args["M"]) + " positions exceed the i32 positions");
  }
  if (!args.ok())
    return tk::runtime::report(args.status());

  tk::compiler::Target target;
  Status s = ctx->targetFor({topk_idx, pos_to_expert, pos_to_token, pos_to_token_topk, token_topk_to_pos, expert_start,
                             expert_end, num_tokens_per_expert},
                            target);
  // One schedule for the three kernels (Count and Place must cut the slots alike), resolved before any writes.
  FusedMappingConfig place;
  place.bins = fusedMappingBins(num_experts);
  if (s.isOk())
    s = fusedMappingSchedule().resolve(ctx, target, place);
  if (!s.isOk())
    return tk::runtime::report(s);
  if (Status s = checkIndicesIfAsked(ctx, "tk_get_fused_mapping", "topk_idx", topk_idx, -1, num_experts, "num_experts",
                                          stream); !s.isOk())
    return tk::runtime::report(s);
  FusedMappingConfig count = place, offsets = place;
  count.stage = FusedMappingConfig::Stage::Count;
  offsets.stage = FusedMappingConfig::Stage::Offsets;

  const int64_t table = place.numBlocks() * place.bins;
  // Scratch: the counts and bases (B, bins) each, then 16-byte aligned stand-ins for empty tensors (the kernels'
  // grids do not depend on N K or M, and a launch refuses an empty tensor): for N K = 0 one zeroed id, counted
  // nowhere since the kernels are then told E = 0, and one token_topk_to_pos entry; for M = 0 one entry of each
  // position table (positions at or past M are never written, so neither is it).
  const bool noSlots = args["N"] * args["K"] == 0, noPositions = args["M"] == 0;
  tk::runtime::Scratch scratch;
  if ((s = scratch.allocateOnStream(ctx, *expert_start, (size_t)table * 2 * 4 + 5 * 16, stream)); !s.isOk())
    return tk::runtime::report(s);
  if (noSlots && !(s = scratch.zeroOnStream(stream)).isOk())
    return tk::runtime::report(s);
  const tk_tensor whole = scratch.tensor(TK_I32, 2 * place.numBlocks(), place.bins);
  const tk_tensor counts = part(whole, 0, {table}), counts2d = part(whole, 0, {place.numBlocks(), place.bins}),
                  base = part(whole, table, {table}), base2d = part(whole, table, {place.numBlocks(), place.bins});
  tk_tensor ids = flatView(topk_idx), toPos = flatView(token_topk_to_pos);
  if (noSlots) {
    ids = part(whole, 2 * table, {1}), ids.dtype = TK_I64;
    toPos = part(whole, 2 * table + 4, {1});
  }
  tk_tensor tables[3] = {*pos_to_expert, *pos_to_token, *pos_to_token_topk};
  for (int i = 0; i < 3 && noPositions; ++i)
    tables[i] = part(whole, 2 * table + 8 + 4 * i, {1});
  const tk_tensor lengths = rowView(num_tokens_per_expert);
  const int64_t e = noSlots ? 0 : num_experts;
  // Made once, for prepare and the runs: these calls take a few µs, their factories' keys a part of it.
  std::vector<tk::runtime::KernelFactory> kernels = {tk::runtime::factoryOf(TK_PROGRAM(buildFusedMapping), count),
                                                     tk::runtime::factoryOf(TK_PROGRAM(buildFusedMapping), place)};
  if (!place.merged)
    kernels.push_back(tk::runtime::factoryOf(TK_PROGRAM(buildFusedMapping), offsets));
  ctx->prepare(kernels, {topk_idx, expert_start});
  s = ctx->run(kernels[0], {&ids, &counts, &tables[0], &tables[1], &tables[2]}, stream, {e});
  if (s.isOk() && place.merged) // Place sums the counts itself
    s = ctx->run(
        kernels[1],
        {&ids, &counts, &toPos, &tables[0], &tables[1], &tables[2], expert_start, expert_end, num_tokens_per_expert},
        stream, {e, args["K"], alignment});
  else if (s.isOk())
    s = ctx->run(kernels[2], {&counts2d, &base2d, &lengths}, stream, {alignment});
  if (s.isOk() && !place.merged)
    s = ctx->run(
        kernels[1],
        {&ids, &base, num_tokens_per_expert, &toPos, &tables[0], &tables[1], &tables[2], expert_start, expert_end},
        stream, {e, args["K"]});
  if (!s.isOk() || (!num_positions && !checksEnabled(ctx, TK_CHECK_INDICES)))
    return tk::runtime::report(s);
  int64_t total = 0;
  if ((s = readTotal(ctx, expert_end, stream, total)); !s.isOk())
    return tk::runtime::report(s);
  if (num_positions)
    *num_positions = total;
  if (total > args["M"])
    s = Status::invalid("tk_get_fused_mapping: the mapping needs " + std::to_string(total) +
                        " positions (the sum of the aligned segment lengths), the position tables have M = " +
                        std::to_string(args["M"]) + ": positions past M were not written");
  return tk::runtime::report(s);
}

extern "C" tk_status tk_get_fused_mapping(tk_context ctx, const tk_tensor *topk_idx, int32_t num_experts,
                                          int32_t alignment, tk_tensor *pos_to_expert, tk_tensor *pos_to_token,
                                          tk_tensor *pos_to_token_topk, tk_tensor *token_topk_to_pos,
                                          tk_tensor *expert_start, tk_tensor *expert_end,
                                          tk_tensor *num_tokens_per_expert, int64_t *num_positions, tk_stream stream) {
  return tk::kernels::guardCall("tk_get_fused_mapping", {{"topk_idx", topk_idx}},
                                {{"pos_to_expert", pos_to_expert},
                                 {"pos_to_token", pos_to_token},
                                 {"pos_to_token_topk", pos_to_token_topk},
                                 {"token_topk_to_pos", token_topk_to_pos},
                                 {"expert_start", expert_start},
                                 {"expert_end", expert_end},
                                 {"num_tokens_per_expert", num_tokens_per_expert}},
                                [&] {
                                  return tk_get_fused_mapping_unguarded(ctx, topk_idx, num_experts, alignment,
                                                                        pos_to_expert, pos_to_token, pos_to_token_topk,
                                                                        token_topk_to_pos, expert_start, expert_end,
                                                                        num_tokens_per_expert, num_positions, stream);
                                });
}

extern "C" int64_t tk_fused_mapping_max_positions(int64_t num_tokens, int64_t num_topk, int64_t num_experts,
                                                  int64_t alignment) {
  if (num_tokens < 0 || num_topk < 0 || num_experts < 1 || alignment < 1)
    return -1;
  return (num_tokens * num_topk + (alignment - 1) * num_experts) / alignment * alignment;
}

TK_REGISTER_OPERATORS(fused_mapping) {
  using S = FusedMappingConfig::Stage;
  auto variant = [](const std::string &name, S s, int64_t experts) {
    FusedMappingConfig c;
    c.stage = s, c.bins = fusedMappingBins(experts);
    return KernelVariant{name, scheduledFactory(fusedMappingSchedule(), TK_PROGRAM(buildFusedMapping), c)};
  };
  registerSchedule(fusedMappingSchedule());
  registerOperator({"get_fused_mapping",
                    "moe",
                    "tk_get_fused_mapping",
                    "expert-major positions of the slots in canonical order: per-block counts, a scan of them, and "
                    "per-warp cursors with stable ranks (three kernels)",
                    {variant("get_fused_mapping.count.bins256", S::Count, 256),
                     variant("get_fused_mapping.offsets.bins256", S::Offsets, 256),
                     variant("get_fused_mapping.place.bins256", S::Place, 256),
                     variant("get_fused_mapping.place.bins1024", S::Place, 1024)}});
}
