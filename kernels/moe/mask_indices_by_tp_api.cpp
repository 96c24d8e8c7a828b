//===- mask_indices_by_tp_api.cpp - tk_mask_indices_by_tp (moe.md 2.5) ----===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "kernels/moe/mask_indices_by_tp.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::moe;

static tk_status tk_mask_indices_by_tp_unguarded(tk_context ctx, const tk_tensor *indices, int64_t n,
                                                 int32_t num_ep_ranks, int32_t tp_rank, int32_t num_tp_ranks,
                                                 tk_tensor *masked_indices, tk_stream stream) {
  const char *op = "tk_mask_indices_by_tp";
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("indices", indices, {"N", "K"}, {TK_I32, TK_I64}, Layout::Contiguous);
  if (args.ok())
    args.tensor("masked_indices", masked_indices, {"N", "K"}, {indices->dtype}, Layout::Contiguous);
  args.require(num_ep_ranks >= 1, "num_ep_ranks must be at least 1, got " + std::to_string(num_ep_ranks));
  args.require(num_tp_ranks >= 1, "num_tp_ranks must be at least 1, got " + std::to_string(num_tp_ranks));
  args.require(tp_rank >= 0 && tp_rank < num_tp_ranks, "tp_rank must be in [0, num_tp_ranks = " +
                                                           std::to_string(num_tp_ranks) + "), got " +
                                                           std::to_string(tp_rank));
  args.require(n >= num_ep_ranks, "n (experts over all EP ranks) must be at least num_ep_ranks = " +
                                      std::to_string(num_ep_ranks) + ", got " + std::to_string(n));
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t perRank = n / num_ep_ranks;
  // i32 ids compute in i32: R Tp must fit, as the reference's int32 arguments.
  if (indices->dtype == TK_I32 && perRank * num_tp_ranks > std::numeric_limits<int32_t>::max())
    return tk::runtime::report(Status::invalid(std::string(op) + ": n / num_ep_ranks x num_tp_ranks = " +
                                               std::to_string(perRank * num_tp_ranks) + " overflows i32 ids"));
  if (args["N"] * args["K"] == 0)
    return tk::runtime::report(Status::ok());
  if (Status s = checkIndicesIfAsked(ctx, "tk_mask_indices_by_tp", "indices", indices, -1, n, "n", stream); !s.isOk())
    return tk::runtime::report(s);
  MaskIndicesConfig config;
  config.dtype = indices->dtype == TK_I32 ? tk::dsl::DType::I32 : tk::dsl::DType::I64;
  tk_tensor flatIn = flatView(indices), flatOut = flatView(masked_indices);
  // The scalars follow the schedule resolved (magic adds four): filled in once it is known.
  std::vector<int64_t> scalars;
  auto fit = [&](MaskIndicesConfig &c, const tk::compiler::Target &) {
    scalars = maskIndicesScalars(c, perRank, num_tp_ranks, tp_rank);
  };
  return tk::runtime::report(runScheduled(ctx, maskIndicesSchedule(), TK_PROGRAM(buildMaskIndices), config,
                                          {&flatIn, &flatOut}, stream, scalars, fit));
}

extern "C" tk_status tk_mask_indices_by_tp(tk_context ctx, const tk_tensor *indices, int64_t n, int32_t num_ep_ranks,
                                           int32_t tp_rank, int32_t num_tp_ranks, tk_tensor *masked_indices,
                                           tk_stream stream) {
  return tk::kernels::guardCall("tk_mask_indices_by_tp", {{"indices", indices}}, {{"masked_indices", masked_indices}},
                                [&] {
                                  return tk_mask_indices_by_tp_unguarded(ctx, indices, n, num_ep_ranks, tp_rank,
                                                                         num_tp_ranks, masked_indices, stream);
                                });
}

TK_REGISTER_OPERATORS(mask_indices_by_tp) {
  auto variant = [](const std::string &name, tk::dsl::DType dtype) {
    MaskIndicesConfig c;
    c.dtype = dtype;
    return KernelVariant{name, scheduledFactory(maskIndicesSchedule(), TK_PROGRAM(buildMaskIndices), c)};
  };
  registerSchedule(maskIndicesSchedule());
  registerOperator({"mask_indices_by_tp", "moe", "tk_mask_indices_by_tp",
                    "expert ids of this TP rank renumbered locally, others -1 (ranks are scalar arguments)",
                    {variant("mask_indices_by_tp.i64", tk::dsl::DType::I64),
                     variant("mask_indices_by_tp.i32", tk::dsl::DType::I32)}});
}
