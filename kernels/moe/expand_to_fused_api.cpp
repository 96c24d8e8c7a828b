//===- expand_to_fused_api.cpp - tk_expand_to_fused[_with_sf] -------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "kernels/moe/expand_to_fused.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::moe;

namespace {

constexpr int64_t kMaxTopk = 64; ///< slots per token the copy kernel unrolls

/// The kernels that copy the rows of `src` (N, W) to their positions and zero
/// the padding positions of `dst`: (M, W) row-major, or column-major storage
/// of `ld` per column (`dst` then its flat view). Two kernels, or one when
/// the copy's schedule is merged (which may also carry another ExpandRows'
/// rows: with_sf's scale factors). They move bits. Planned (schedules
/// resolved) before any kernel of the call launches, so that a refused
/// schedule writes nothing.
struct ExpandRows {
  ExpandConfig copy, padding;
  tk_tensor src{}, dst{}, column{}, experts{};
  const tk_tensor *pos = nullptr;
  std::vector<int64_t> scalars;
  bool runPadding = false, runCopy = false;
  const ExpandRows *factors = nullptr; ///< merged: the scale factors this copy's kernel also moves

  Status plan(tk_context ctx, const tk::compiler::Target &target, const tk_tensor *source, const tk_tensor *positions,
              const tk_tensor *posToExpert, const tk_tensor *dest, int64_t m, bool colMajor, int64_t ld) {
    copy.dtype = dslDtype(bitsOf(source->dtype));
    copy.width = source->shape[1];
    copy.topk = positions->shape[1];
    copy.colMajor = colMajor;
    copy.alignBytes =
        std::min(alignmentOf(source, elementBytes(source->dtype)), alignmentOf(dest, elementBytes(dest->dtype)));
    padding = copy;
    padding.pass = ExpandConfig::Pass::ZeroPadding;
    src = bitsView(source), dst = bitsView(dest), column = columnView(posToExpert), experts = *posToExpert;
    pos = positions;
    if (colMajor)
      scalars = {ld, m};
    // The copy's resolved last: a call is logged (and tuned) by its copy, the main kernel.
    runCopy = m > 0 && source->shape[0] > 0;
    Status s = m > 0 ? expandSchedule().resolve(ctx, target, padding) : Status::ok();
    s = s.isOk() && runCopy ? expandSchedule().resolve(ctx, target, copy) : s;
    runPadding = m > 0 && !(runCopy && copy.merged);
    return s;
  }

  /// With a merged copy, the rows of `sf` (planned for the same call, copying too) ride along in this copy's
  /// kernel: one launch for the call.
  void carry(ExpandRows &sf) {
    copy.sfWidth = sf.copy.width, copy.sfDtype = sf.copy.dtype, copy.sfColMajor = sf.copy.colMajor;
    copy.sfAlignBytes = sf.copy.alignBytes;
    factors = &sf;
    sf.runCopy = sf.runPadding = false;
  }

  /// The kernels launch() runs, for tk_context_s::prepare.
  void kernels(std::vector<tk::runtime::KernelFactory> &out) const {
    if (runPadding)
      out.push_back(tk::runtime::factoryOf(TK_PROGRAM(buildExpand), padding));
    if (runCopy)
      out.push_back(tk::runtime::factoryOf(TK_PROGRAM(buildExpand), copy));
  }

  /// Padding first: a valid mapping never names a padding position, so the order is moot.
  Status launch(tk_context ctx, tk_stream stream) const {
    Status s = Status::ok();
    if (runPadding)
      s = ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildExpand), padding), {&column, &dst}, stream, scalars);
    if (!s.isOk() || !runCopy)
      return s;
    const auto kernel = tk::runtime::factoryOf(TK_PROGRAM(buildExpand), copy);
    if (!copy.merged)
      return ctx->run(kernel, {&src, pos, &dst}, stream, scalars);
    if (!factors)
      return ctx->run(kernel, {&src, pos, &experts, &dst}, stream, scalars);
    return ctx->run(kernel, {&src, &factors->src, pos, &experts, &dst, &factors->dst}, stream,
                    copy.colMajor ? scalars : factors->scalars);
  }
};

/// The mapping's contract: token_topk_to_pos (N, K) and pos_to_expert (M) int32 contiguous.
void mappingContract(Arguments &args, const tk_tensor *tokenTopkToPos, const tk_tensor *posToExpert) {
  args.tensor("token_topk_to_pos", tokenTopkToPos, {"N", "K"}, {TK_I32}, Layout::Contiguous);
  args.tensor("pos_to_expert", posToExpert, {"M"}, {TK_I32}, Layout::Contiguous);
  // Positions are i32, and so are the kernels' row bounds.
  if (args.ok())
    args.require(args["N"] <= std::numeric_limits<int32_t>::max() && args["M"] <= std::numeric_limits<int32_t>::max(),
                 "N = " + std::to_string(args["N"]) + " tokens and M = " + std::to_string(args["M"]) +
                     " positions must each fit the i32 positions");
}

const std::vector<tk_dtype> kData = {TK_BF16, TK_F16, TK_F32, TK_F8_E4M3, TK_I8, TK_U8, TK_I16, TK_I32, TK_I64};

} // namespace

static tk_status tk_expand_to_fused_unguarded(tk_context ctx, const tk_tensor *x, const tk_tensor *token_topk_to_pos,
                                              const tk_tensor *pos_to_expert, tk_tensor *expanded_x, tk_stream stream) {
  Arguments args("tk_expand_to_fused");
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("x", x, {"N", "H"}, kData, Layout::Contiguous);
  mappingContract(args, token_topk_to_pos, pos_to_expert);
  if (args.ok())
    args.tensor("expanded_x", expanded_x, {"M", "H"}, {x->dtype}, Layout::Contiguous);
  if (args.ok())
    args.require(args["K"] >= 1 && args["K"] <= kMaxTopk, "K (token_topk_to_pos's columns) must be in [1, " +
                                                              std::to_string(kMaxTopk) + "], got " +
                                                              std::to_string(args["K"]));
  if (!args.ok())
    return tk::runtime::report(args.status());
  if (args["H"] == 0 || args["M"] == 0) // no row to write
    return tk::runtime::report(Status::ok());
  // Where every tensor lives and every schedule, checked before the first of the kernels writes anything.
  tk::compiler::Target target;
  ExpandRows rows;
  Status s = ctx->targetFor({x, token_topk_to_pos, pos_to_expert, expanded_x}, target);
  if (s.isOk())
    s = checkIndicesIfAsked(ctx, "tk_expand_to_fused", "token_topk_to_pos", token_topk_to_pos, -1, args["M"],
                            "M, pos_to_expert's length", stream);
  if (s.isOk())
    s = rows.plan(ctx, target, x, token_topk_to_pos, pos_to_expert, expanded_x, args["M"], false, 0);
  if (s.isOk()) {
    std::vector<tk::runtime::KernelFactory> kernels;
    rows.kernels(kernels);
    ctx->prepare(kernels, {x, expanded_x});
  }
  return tk::runtime::report(s.isOk() ? rows.launch(ctx, stream) : s);
}

extern "C" tk_status tk_expand_to_fused(tk_context ctx, const tk_tensor *x, const tk_tensor *token_topk_to_pos,
                                        const tk_tensor *pos_to_expert, tk_tensor *expanded_x, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_expand_to_fused", {{"x", x}, {"token_topk_to_pos", token_topk_to_pos}, {"pos_to_expert", pos_to_expert}},
      {{"expanded_x", expanded_x}},
      [&] { return tk_expand_to_fused_unguarded(ctx, x, token_topk_to_pos, pos_to_expert, expanded_x, stream); });
}

static tk_status tk_expand_to_fused_with_sf_unguarded(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                                      int32_t num_per_channels, const tk_tensor *token_topk_to_pos,
                                                      const tk_tensor *pos_to_expert,
                                                      int32_t use_tma_aligned_col_major_sf, tk_tensor *expanded_x,
                                                      tk_tensor *expanded_sf, tk_stream stream) {
  Arguments args("tk_expand_to_fused_with_sf");
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("x", x, {"N", "H"}, kData, Layout::Contiguous);
  args.tensor("x_sf", x_sf, {"N", "Hs"}, {TK_F32, TK_I32}, Layout::Contiguous);
  mappingContract(args, token_topk_to_pos, pos_to_expert);
  args.require(num_per_channels == 32 || num_per_channels == 128,
               "num_per_channels must be 32 or 128, got " + std::to_string(num_per_channels));
  if (!args.ok())
    return tk::runtime::report(args.status());
  const bool packed = x_sf->dtype == TK_I32, colMajor = use_tma_aligned_col_major_sf != 0;
  const int64_t blocks = tk::dsl::ceil_div(args["H"], num_per_channels),
                hs = packed ? tk::dsl::ceil_div(blocks, 4) : blocks;
  args.require(args["Hs"] == hs, std::string("x_sf has ") + std::to_string(args["Hs"]) + " columns; the contract is " +
                                     std::to_string(hs) + (packed ? " words of 4 packed UE8M0 exponents" : "") +
                                     " for H = " + std::to_string(args["H"]) + " in blocks of " +
                                     std::to_string(num_per_channels));
  args.require(!packed || colMajor, "int32 (packed UE8M0) x_sf needs use_tma_aligned_col_major_sf");
  args.require(args["K"] >= 1 && args["K"] <= kMaxTopk, "K (token_topk_to_pos's columns) must be in [1, " +
                                                            std::to_string(kMaxTopk) + "], got " +
                                                            std::to_string(args["K"]));
  if (args.ok())
    args.tensor("expanded_x", expanded_x, {"M", "H"}, {x->dtype}, Layout::Contiguous);
  const int64_t m = args.ok() ? args["M"] : 0, ld = (m + 3) / 4 * 4;
  if (args.ok())
    args.tensor("expanded_sf", expanded_sf, {"M", "Hs"}, {x_sf->dtype},
                colMajor ? Layout::Strided : Layout::Contiguous);
  if (args.ok() && colMajor && m > 0 && hs > 0)
    args.require(expanded_sf->strides[0] == 1 && expanded_sf->strides[1] == ld,
                 "expanded_sf must be the TMA-aligned column-major view, strides (1, " + std::to_string(ld) +
                     ") (storage (Hs, align(M, 4))), got (" + std::to_string(expanded_sf->strides[0]) + ", " +
                     std::to_string(expanded_sf->strides[1]) + ")");
  if (args.ok() && colMajor)
    args.require(hs * ld <= std::numeric_limits<int32_t>::max(),
                 "the column-major scale factors' storage (Hs x align(M, 4) = " + std::to_string(hs * ld) +
                     ") exceeds the i32 positions of the kernel");
  if (!args.ok())
    return tk::runtime::report(args.status());
  if (m == 0) // no row to write
    return tk::runtime::report(Status::ok());
  // Where every tensor lives and every schedule, checked before the first of the kernels writes anything.
  tk::compiler::Target target;
  Status s = ctx->targetFor({x, x_sf, token_topk_to_pos, pos_to_expert, expanded_x, expanded_sf}, target);
  if (s.isOk())
    s = checkIndicesIfAsked(ctx, "tk_expand_to_fused_with_sf", "token_topk_to_pos", token_topk_to_pos, -1, m,
                            "M, pos_to_expert's length", stream);
  tk_tensor sfDst = *expanded_sf;
  if (colMajor) { // the storage the view spans, as one run: element (p, j) at j * ld + p
    sfDst.ndim = 1;
    sfDst.shape[0] = hs > 0 ? (hs - 1) * ld + m : 0;
    sfDst.strides[0] = 1;
  }
  ExpandRows data, sf;
  // The data's planned last: the call is logged (and tuned) by its copy, the main kernel.
  if (s.isOk() && hs > 0)
    s = sf.plan(ctx, target, x_sf, token_topk_to_pos, pos_to_expert, &sfDst, m, colMajor, ld);
  if (s.isOk() && args["H"] > 0)
    s = data.plan(ctx, target, x, token_topk_to_pos, pos_to_expert, expanded_x, m, false, 0);
  if (s.isOk() && data.runCopy && data.copy.merged && sf.runCopy)
    data.carry(sf);
  if (s.isOk()) {
    std::vector<tk::runtime::KernelFactory> kernels;
    data.kernels(kernels);
    sf.kernels(kernels);
    ctx->prepare(kernels, {x, expanded_x});
  }
  if (s.isOk())
    s = data.launch(ctx, stream);
  if (s.isOk())
    s = sf.launch(ctx, stream);
  return tk::runtime::report(s);
}

extern "C" tk_status tk_expand_to_fused_with_sf(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                                int32_t num_per_channels, const tk_tensor *token_topk_to_pos,
                                                const tk_tensor *pos_to_expert, int32_t use_tma_aligned_col_major_sf,
                                                tk_tensor *expanded_x, tk_tensor *expanded_sf, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_expand_to_fused_with_sf",
      {{"x", x}, {"x_sf", x_sf}, {"token_topk_to_pos", token_topk_to_pos}, {"pos_to_expert", pos_to_expert}},
      {{"expanded_x", expanded_x}, {"expanded_sf", expanded_sf}}, [&] {
        return tk_expand_to_fused_with_sf_unguarded(ctx, x, x_sf, num_per_channels, token_topk_to_pos, pos_to_expert,
                                                    use_tma_aligned_col_major_sf, expanded_x, expanded_sf, stream);
      });
}

TK_REGISTER_OPERATORS(expand_to_fused) {
  using tk::dsl::DType;
  using P = ExpandConfig::Pass;
  auto config = [](P pass, DType dtype, int64_t width, int64_t k, bool colMajor, int64_t merged = 0) {
    ExpandConfig c;
    c.pass = pass, c.merged = merged, c.dtype = dtype, c.width = width, c.topk = k, c.colMajor = colMajor;
    return c;
  };
  auto variant = [](const std::string &name, const ExpandConfig &c) {
    return KernelVariant{name, scheduledFactory(expandSchedule(), TK_PROGRAM(buildExpand), c)};
  };
  // One launch for the e4m3 rows and their packed column-major scale factors (aligned as a call's (N, 56) words).
  ExpandConfig withSf = config(P::Copy, DType::I8, 7168, 8, false, 1);
  withSf.sfWidth = 56, withSf.sfDtype = DType::I32, withSf.sfColMajor = true, withSf.sfAlignBytes = 16;
  registerSchedule(expandSchedule());
  registerOperator({"expand_to_fused",
                    "moe",
                    "tk_expand_to_fused",
                    "each token's row copied to its slots' positions, padding "
                    "positions zero",
                    {variant("expand_to_fused.bf16.h7168.k8", config(P::Copy, DType::I16, 7168, 8, false)),
                     variant("expand_to_fused.padding.bf16.h7168", config(P::ZeroPadding, DType::I16, 7168, 0, false)),
                     variant("expand_to_fused.merged.bf16.h7168.k8", config(P::Copy, DType::I16, 7168, 8, false, 1))}});
  registerOperator({"expand_to_fused_with_sf",
                    "moe",
                    "tk_expand_to_fused_with_sf",
                    "expand_to_fused of e4m3 rows and their scale factors "
                    "(row- or TMA-aligned column-major)",
                    {variant("expand_to_fused.e4m3.h7168.k8", config(P::Copy, DType::I8, 7168, 8, false)),
                     variant("expand_to_fused.sf.colmajor.k8", config(P::Copy, DType::I32, 56, 8, true)),
                     variant("expand_to_fused.padding.sf.colmajor", config(P::ZeroPadding, DType::I32, 56, 0, true)),
                     variant("expand_to_fused.merged.e4m3.h7168.k8.sf.colmajor", withSf)}});
}
