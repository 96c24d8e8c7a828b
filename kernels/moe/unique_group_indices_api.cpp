//===- unique_group_indices_api.cpp - tk_inplace_unique_group_indices -----===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "kernels/moe/unique_group_indices.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::moe;

namespace {
constexpr int64_t kMaxTopk = 64; ///< slots per row the kernel compares pairwise
} // namespace

static tk_status tk_inplace_unique_group_indices_unguarded(tk_context ctx, tk_tensor *group_indices,
                                                           int32_t num_groups, tk_stream stream) {
  const char *op = "tk_inplace_unique_group_indices";
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("group_indices", group_indices, {"N", "K"}, {TK_I64}, Layout::Contiguous);
  args.require(num_groups >= 1 && num_groups <= 128,
               "num_groups must be in [1, 128], got " + std::to_string(num_groups));
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t k = args["K"];
  if (k > kMaxTopk)
    return tk::runtime::report(Status::unsupported(std::string(op) + ": at most " + std::to_string(kMaxTopk) +
                                                   " ids per row, got " + std::to_string(k)));
  if (args["N"] == 0 || k <= 1) // nothing can repeat
    return tk::runtime::report(Status::ok());
  if (Status s = checkIndicesIfAsked(ctx, "tk_inplace_unique_group_indices", "group_indices", group_indices, -1,
                                          num_groups, "num_groups", stream); !s.isOk())
    return tk::runtime::report(s);
  UniqueGroupIndicesConfig config;
  config.topk = k;
  return tk::runtime::report(runScheduled(ctx, uniqueGroupIndicesSchedule(), TK_PROGRAM(buildUniqueGroupIndices),
                                          config, {group_indices}, stream));
}

extern "C" tk_status tk_inplace_unique_group_indices(tk_context ctx, tk_tensor *group_indices, int32_t num_groups,
                                                     tk_stream stream) {
  return tk::kernels::guardCall("tk_inplace_unique_group_indices", {}, {{"group_indices", group_indices}}, [&] {
    return tk_inplace_unique_group_indices_unguarded(ctx, group_indices, num_groups, stream);
  });
}

TK_REGISTER_OPERATORS(unique_group_indices) {
  auto variant = [](const std::string &name, int64_t k) {
    UniqueGroupIndicesConfig c;
    c.topk = k;
    return KernelVariant{name, scheduledFactory(uniqueGroupIndicesSchedule(), TK_PROGRAM(buildUniqueGroupIndices), c)};
  };
  registerSchedule(uniqueGroupIndicesSchedule());
  registerOperator({"inplace_unique_group_indices", "moe", "tk_inplace_unique_group_indices",
                    "per row, later repeats of a non-negative id set to -1, in place",
                    {variant("unique_group_indices.k8", 8), variant("unique_group_indices.k9", 9)}});
}
