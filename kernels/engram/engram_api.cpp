//===- engram_api.cpp - tk_engram_hash, tk_engram_fused_weight (4.1, 4.2) -===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/input_checks.h"
#include "kernels/common/validate.h"
#include "kernels/engram/engram_hash.h"
#include "kernels/engram/fused_weight.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"

#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::engram;

namespace {
// The reference specialises on (N, Lh, E); these bound what one kernel unrolls.
constexpr int64_t kMaxNgram = 8, kMaxLayers = 16, kMaxColumns = 1024;
} // namespace

static tk_status tk_engram_hash_unguarded(tk_context ctx, const tk_tensor *ngram_token_ids,
                                          const tk_tensor *multipliers, const tk_tensor *vocab_sizes,
                                          const tk_tensor *offsets, tk_tensor *out, tk_stream stream) {
  const char *op = "tk_engram_hash";
  Arguments args(op);
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("ngram_token_ids", ngram_token_ids, {"T", "N"}, {TK_I32}, Layout::Contiguous);
  args.tensor("multipliers", multipliers, {"Lh", "N"}, {TK_I64}, Layout::Contiguous);
  if (args.ok()) {
    args.require(args["N"] >= 2, "N (ngram_token_ids' columns) must be at least 2, got " + std::to_string(args["N"]));
    args.define("N-1", args["N"] - 1, "N - 1 n-gram orders");
  }
  if (args.ok())
    args.tensor("vocab_sizes", vocab_sizes, {"Lh", "N-1", "E"}, {TK_I32}, Layout::Contiguous);
  if (args.ok()) {
    args.define("C", (args["N"] - 1) * args["E"], "(N - 1) E columns");
    args.tensor("offsets", offsets, {"Lh", "C"}, {TK_I32}, Layout::Contiguous);
    args.tensor("out", out, {"Lh", "T", "C"}, {TK_I32}, Layout::Contiguous);
  }
  if (args.ok())
    args.require(args["T"] <= std::numeric_limits<int32_t>::max(),
                 "T = " + std::to_string(args["T"]) + " tokens exceed the kernel's i32 rows");
  if (!args.ok())
    return tk::runtime::report(args.status());
  const int64_t n = args["N"], layers = args["Lh"], e = args["E"], t = args["T"], cols = args["C"];
  if (n > kMaxNgram || layers > kMaxLayers || cols > kMaxColumns)
    return tk::runtime::report(Status::unsupported(
        std::string(op) + ": at most N = " + std::to_string(kMaxNgram) + ", Lh = " + std::to_string(kMaxLayers) +
        " and (N - 1) E = " + std::to_string(kMaxColumns) + ", got " + std::to_string(n) + ", " +
        std::to_string(layers) + " and " + std::to_string(cols)));
  if (t == 0 || cols == 0 || layers == 0) // the output is empty
    return tk::runtime::report(Status::ok());
  if (Status s = checkIndicesIfAsked(ctx, op, "vocab_sizes", vocab_sizes, 1, (int64_t)1 << 31,
                                     "a modulus must be positive", stream);
      !s.isOk())
    return tk::runtime::report(s);
  EngramHashConfig c;
  c.ngram = n, c.layers = layers, c.tables = e;
  tk_tensor flatMult = flatView(multipliers), flatVocab = flatView(vocab_sizes), flatOffsets = flatView(offsets);
  std::vector<tk_tensor> slices(layers, *out); // layer l's (T, C) rows
  std::vector<const tk_tensor *> tensors = {ngram_token_ids, &flatMult, &flatVocab, &flatOffsets};
  for (int64_t l = 0; l < layers; ++l) {
    tk_tensor &s = slices[l];
    s.data = static_cast<char *>(out->data) + l * t * cols * 4;
    s.ndim = 2, s.shape[0] = t, s.shape[1] = cols, s.strides[0] = cols, s.strides[1] = 1;
    tensors.push_back(&s);
  }
  return tk::runtime::report(runScheduled(ctx, engramHashSchedule(), TK_PROGRAM(buildEngramHash), c, tensors, stream));
}

extern "C" tk_status tk_engram_hash(tk_context ctx, const tk_tensor *ngram_token_ids, const tk_tensor *multipliers,
                                    const tk_tensor *vocab_sizes, const tk_tensor *offsets, tk_tensor *out,
                                    tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_engram_hash",
      {{"ngram_token_ids", ngram_token_ids},
       {"multipliers", multipliers},
       {"vocab_sizes", vocab_sizes},
       {"offsets", offsets}},
      {{"out", out}},
      [&] { return tk_engram_hash_unguarded(ctx, ngram_token_ids, multipliers, vocab_sizes, offsets, out, stream); });
}

extern "C" tk_status tk_engram_make_offsets(const int32_t *vocab_sizes, int64_t layers, int64_t orders, int64_t tables,
                                            int32_t *offsets) {
  if (!vocab_sizes || !offsets || layers < 0 || orders < 1 || tables < 1)
    return tk::runtime::report(Status::invalid(
        "tk_engram_make_offsets: needs vocab_sizes and offsets, layers >= 0, orders >= 1 and tables >= 1"));
  const int64_t cols = orders * tables;
  for (int64_t l = 0; l < layers; ++l) {
    int64_t sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t v = vocab_sizes[l * cols + c];
      if (v <= 0 || sum + v > std::numeric_limits<int32_t>::max())
        return tk::runtime::report(Status::invalid(
            "tk_engram_make_offsets: " +
            (v <= 0 ? "vocab_sizes[" + std::to_string(l * cols + c) + "] = " + std::to_string(v) + " is not positive"
                    : "layer " + std::to_string(l) + "'s tables exceed 2^31 - 1 rows")));
      sum += v;
    }
  }
  for (int64_t l = 0; l < layers; ++l) {
    int32_t sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      offsets[l * cols + c] = sum, sum += vocab_sizes[l * cols + c];
  }
  return tk::runtime::report(Status::ok());
}

static tk_status tk_engram_fused_weight_unguarded(tk_context ctx, const tk_tensor *weight_hidden,
                                                  const tk_tensor *weight_embed, tk_tensor *weight_fused,
                                                  tk_stream stream) {
  Arguments args("tk_engram_fused_weight");
  args.require(ctx != nullptr, "ctx is null");
  args.tensor("weight_hidden", weight_hidden, {"n", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("weight_embed", weight_embed, {"n", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("weight_fused", weight_fused, {"n", "H"}, {TK_F32}, Layout::Contiguous);
  if (args.ok())
    args.require(args["n"] * args["H"] <= std::numeric_limits<int32_t>::max(),
                 "n x H = " + std::to_string(args["n"] * args["H"]) + " elements exceed the kernel's i32 range");
  if (!args.ok())
    return tk::runtime::report(args.status());
  if (args["n"] * args["H"] == 0)
    return tk::runtime::report(Status::ok());
  tk_tensor wh = flatView(weight_hidden), we = flatView(weight_embed), wf = flatView(weight_fused);
  return tk::runtime::report(runScheduled(ctx, fusedWeightSchedule(), TK_PROGRAM(buildFusedWeight), FusedWeightConfig{},
                                          {&wh, &we, &wf}, stream));
}

extern "C" tk_status tk_engram_fused_weight(tk_context ctx, const tk_tensor *weight_hidden,
                                            const tk_tensor *weight_embed, tk_tensor *weight_fused, tk_stream stream) {
  return tk::kernels::guardCall(
      "tk_engram_fused_weight", {{"weight_hidden", weight_hidden}, {"weight_embed", weight_embed}},
      {{"weight_fused", weight_fused}},
      [&] { return tk_engram_fused_weight_unguarded(ctx, weight_hidden, weight_embed, weight_fused, stream); });
}

TK_REGISTER_OPERATORS(engram) {
  registerSchedule(engramHashSchedule());
  registerSchedule(fusedWeightSchedule());
  auto hash = [](const std::string &name, int64_t n, int64_t layers, int64_t tables) {
    EngramHashConfig c;
    c.ngram = n, c.layers = layers, c.tables = tables;
    return KernelVariant{name, scheduledFactory(engramHashSchedule(), TK_PROGRAM(buildEngramHash), c)};
  };
  registerOperator({"engram_hash",
                    "engram",
                    "tk_engram_hash",
                    "n-gram hash rows: wrapping i64 products, their XOR chain, floor-mod per table plus offsets",
                    {hash("engram_hash.n3.l2.e8", 3, 2, 8), hash("engram_hash.n4.l1.e5", 4, 1, 5)}});
  registerOperator({"engram_fused_weight",
                    "engram",
                    "tk_engram_fused_weight",
                    "the product of the gate's two bf16 RMSNorm weights, exact in fp32",
                    {{"engram_fused_weight",
                      scheduledFactory(fusedWeightSchedule(), TK_PROGRAM(buildFusedWeight), FusedWeightConfig{})}}});
}
