//===- expand_to_fused_api.cpp - tk_expand_to_fused[_with_sf] -------------===//
#include "kernels/common/arguments.h"
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

tk::dsl::DType dslBits(tk_dtype t) {
  switch (bitsOf(t)) {
  case TK_I64:
    return tk::dsl::DType::I64;
  case TK_I32:
    return tk::dsl::DType::I32;
  case TK_I16:
    return tk::dsl::DType::I16;
  default:
    return tk::dsl::DType::I8;
  }
}

/// Copies the rows of `src` (N, W) to their positions and zeroes the padding
/// positions of `dst`: (M, W) row-major, or column-major storage of `ld`
/// per column (`dst` then its flat view). Both kernels move bits.
Status expandRows(tk_context ctx, const tk_tensor *src, const tk_tensor *pos, const tk_tensor *experts,
                  const tk_tensor *dst, int64_t positions, bool colMajor, int64_t ld, tk_stream stream) {
  const int64_t tokens = src->shape[0], width = src->shape[1];
  ExpandConfig c;
  c.dtype = dslBits(src->dtype);
  c.width = width;
  c.topk = pos->shape[1];
  c.colMajor = colMajor;
  c.alignBytes = std::min(alignmentOf(src, elementBytes(src->dtype)), alignmentOf(dst, elementBytes(dst->dtype)));
  tk_tensor srcBits = bitsView(src), dstBits = bitsView(dst);
  std::vector<int64_t> scalars;
  if (colMajor)
    scalars = {ld, positions};
  Status s = Status::ok();
  if (positions > 0) { // padding first: a valid mapping never names a padding
                       // position, so the order is moot
    ExpandConfig z = c;
    z.pass = ExpandConfig::Pass::ZeroPadding;
    tk_tensor column = columnView(experts);
    s = runScheduled(ctx, expandSchedule(), buildExpand, z, {&column, &dstBits}, stream, scalars);
  }
  if (s.isOk() && tokens > 0 && positions > 0)
    s = runScheduled(ctx, expandSchedule(), buildExpand, c, {&srcBits, pos, &dstBits}, stream, scalars);
  return s;
}

/// The mapping's contract: token_topk_to_pos (N, K) and pos_to_expert (M) int32 contiguous.
void mappingContract(Arguments &args, const tk_tensor *tokenTopkToPos, const tk_tensor *posToExpert) {
  args.tensor("token_topk_to_pos", tokenTopkToPos, {"N", "K"}, {TK_I32}, Layout::Contiguous);
  args.tensor("pos_to_expert", posToExpert, {"M"}, {TK_I32}, Layout::Contiguous);
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
  // Where every tensor lives, checked before the first of the kernels writes anything.
  tk::compiler::Target target;
  if (Status s = ctx->targetFor({x, token_topk_to_pos, pos_to_expert, expanded_x}, target); !s.isOk())
    return tk::runtime::report(s);
  return tk::runtime::report(
      expandRows(ctx, x, token_topk_to_pos, pos_to_expert, expanded_x, args["M"], false, 0, stream));
}

extern "C" tk_status tk_expand_to_fused(tk_context ctx, const tk_tensor *x, const tk_tensor *token_topk_to_pos,
                                        const tk_tensor *pos_to_expert, tk_tensor *expanded_x, tk_stream stream) {
  return tk::runtime::guardEntry("tk_expand_to_fused", [&] {
    return tk_expand_to_fused_unguarded(ctx, x, token_topk_to_pos, pos_to_expert, expanded_x, stream);
  });
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
  // Where every tensor lives, checked before the first of the kernels writes anything.
  tk::compiler::Target target;
  Status s = ctx->targetFor({x, x_sf, token_topk_to_pos, pos_to_expert, expanded_x, expanded_sf}, target);
  if (!s.isOk())
    return tk::runtime::report(s);
  if (args["H"] > 0)
    s = expandRows(ctx, x, token_topk_to_pos, pos_to_expert, expanded_x, m, false, 0, stream);
  if (s.isOk() && hs > 0 && m > 0) {
    tk_tensor sfDst = *expanded_sf;
    if (colMajor) { // the storage the view spans, as one run: element (p, j) at
                    // j * ld + p
      sfDst.ndim = 1;
      sfDst.shape[0] = (hs - 1) * ld + m;
      sfDst.strides[0] = 1;
    }
    s = expandRows(ctx, x_sf, token_topk_to_pos, pos_to_expert, &sfDst, m, colMajor, ld, stream);
  }
  return tk::runtime::report(s);
}

extern "C" tk_status tk_expand_to_fused_with_sf(tk_context ctx, const tk_tensor *x, const tk_tensor *x_sf,
                                                int32_t num_per_channels, const tk_tensor *token_topk_to_pos,
                                                const tk_tensor *pos_to_expert, int32_t use_tma_aligned_col_major_sf,
                                                tk_tensor *expanded_x, tk_tensor *expanded_sf, tk_stream stream) {
  return tk::runtime::guardEntry("tk_expand_to_fused_with_sf", [&] {
    return tk_expand_to_fused_with_sf_unguarded(ctx, x, x_sf, num_per_channels, token_topk_to_pos, pos_to_expert,
                                                use_tma_aligned_col_major_sf, expanded_x, expanded_sf, stream);
  });
}

TK_REGISTER_OPERATORS(expand_to_fused) {
  using tk::dsl::DType;
  auto variant = [](const std::string &name, ExpandConfig::Pass pass, DType dtype, int64_t width, int64_t k,
                    bool colMajor) {
    ExpandConfig c;
    c.pass = pass;
    c.dtype = dtype;
    c.width = width;
    c.topk = k;
    c.colMajor = colMajor;
    return KernelVariant{name, scheduledFactory(expandSchedule(), buildExpand, c)};
  };
  using P = ExpandConfig::Pass;
  registerSchedule(expandSchedule());
  registerOperator({"expand_to_fused",
                    "moe",
                    "tk_expand_to_fused",
                    "each token's row copied to its slots' positions, padding "
                    "positions zero",
                    {variant("expand_to_fused.bf16.h7168.k8", P::Copy, DType::I16, 7168, 8, false),
                     variant("expand_to_fused.padding.bf16.h7168", P::ZeroPadding, DType::I16, 7168, 0, false)}});
  registerOperator({"expand_to_fused_with_sf",
                    "moe",
                    "tk_expand_to_fused_with_sf",
                    "expand_to_fused of e4m3 rows and their scale factors "
                    "(row- or TMA-aligned column-major)",
                    {variant("expand_to_fused.e4m3.h7168.k8", P::Copy, DType::I8, 7168, 8, false),
                     variant("expand_to_fused.sf.colmajor.k8", P::Copy, DType::I32, 56, 8, true),
                     variant("expand_to_fused.padding.sf.colmajor", P::ZeroPadding, DType::I32, 56, 0, true)}});
}
