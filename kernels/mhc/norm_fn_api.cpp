//===- norm_fn_api.cpp - tk_mhc_pre_norm_fn_fwd, _bwd (3.2) ---------------===//
#include "kernels/common/arguments.h"
#include "kernels/common/entry_guard.h"
#include "kernels/common/validate.h"
#include "kernels/mhc/norm_fn.h"
#include "kernels/mhc/views.h"
#include "kernels/registry.h"
#include "tk/runtime/Context.h"
#include "tk/runtime/Scratch.h"

#include <algorithm>
#include <cmath>
#include <limits>

using tk::runtime::Status;
using namespace tk::kernels;
using namespace tk::kernels::mhc;

Status tk::kernels::mhc::checkNormFnLimits(const char *op, Arguments &args, float eps) {
  args.require(std::isfinite(eps) && eps > 0,
               "mhc_norm_eps must be finite and positive (an all-zero row divides by it), got " + std::to_string(eps));
  if (!args.ok())
    return args.status();
  const int64_t n = args["n"], h = args["H"], n3 = args["n3"], g = args["G"], t = args["T"];
  if (n < 1 || n > kNormFnMaxMixes || h > std::numeric_limits<int32_t>::max())
    return Status::unsupported(std::string(op) + ": residual has n = " + std::to_string(n) +
                               " streams of H = " + std::to_string(h) + "; n from 1 to " +
                               std::to_string(kNormFnMaxMixes) + " and H within i32 are supported");
  args.require(g == n * h, "fn has " + std::to_string(g) + " columns; residual's n H is " + std::to_string(n * h));
  if (!args.ok())
    return args.status();
  if (n3 < 1 || n3 > kNormFnMaxMixes)
    return Status::unsupported(std::string(op) + ": fn has " + std::to_string(n3) + " rows; 1 to " +
                               std::to_string(kNormFnMaxMixes) + " are supported (the product's 32 columns)");
  if (g < 8 || g % 8 != 0)
    return Status::unsupported(std::string(op) + ": n H = " + std::to_string(g) +
                               " is not a positive multiple of 8 (the tensor-core product's K step)");
  if (std::max(t, n3) * g > std::numeric_limits<int32_t>::max())
    return Status::unsupported(std::string(op) + ": max(T, n3) n H = " + std::to_string(std::max(t, n3) * g) +
                               " exceeds the kernels' i32 indices");
  return Status::ok();
}

Status tk::kernels::mhc::runNormFnForward(tk_context ctx, NormFnConfig &c, const tk_tensor &x, const tk_tensor *fn,
                                          const tk_tensor *w1, tk_tensor *mix, tk_tensor *mul, tk_tensor *ss, float eps,
                                          tk_stream stream) {
  std::vector<const tk_tensor *> inputs = {&x, fn};
  if (w1)
    inputs.push_back(w1);
  std::vector<const tk_tensor *> tensors = inputs;
  tensors.insert(tensors.end(), {mix, mul, ss});
  // runScheduled's resolution, kept here: the splits it chooses decide the launches.
  tk::compiler::Target target;
  if (Status s = ctx->targetFor(tensors, target); !s.isOk())
    return s;
  if (Status s = normFnSchedule(false).resolve(ctx, target, c); !s.isOk())
    return s;
  const std::vector<int64_t> scalars = {tk::runtime::f32Scalar(eps)};
  const int64_t splits = c.numSplits(), t = x.shape[0];
  if (splits == 1)
    return ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildNormFn), c), tensors, stream, scalars);
  NormFnConfig finish;
  finish.stage = NormFnStage::Finish, finish.width = c.width, finish.splits = splits, finish.pdl = c.pdl;
  ctx->prepare(
      {tk::runtime::factoryOf(TK_PROGRAM(buildNormFn), c), tk::runtime::factoryOf(TK_PROGRAM(buildNormFn), finish)},
      tensors);
  // The splits' sums, [T, S 32] and [T, S], in scratch memory for the Finish kernel.
  tk::runtime::Scratch scratch;
  const size_t mulBytes = (size_t)t * splits * kNormFnMaxMixes * 4;
  if (Status s = scratch.allocateOnStream(ctx, *mix, mulBytes + (size_t)t * splits * 4, stream); !s.isOk())
    return s;
  tk_tensor mulParts = scratch.tensor(TK_F32, t, splits * kNormFnMaxMixes), ssParts = scratch.tensor(TK_F32, t, splits);
  ssParts.data = static_cast<char *>(mulParts.data) + mulBytes;
  inputs.insert(inputs.end(), {&mulParts, &ssParts});
  if (Status s = ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildNormFn), c), inputs, stream); !s.isOk())
    return s;
  return ctx->run(tk::runtime::factoryOf(TK_PROGRAM(buildNormFn), finish), {&mulParts, &ssParts, mix, mul, ss}, stream,
                  scalars);
}

namespace {
/// The backward's Slab kernel (the main one).
NormFnConfig slabConfig(int64_t width, bool weighted, bool accumulate) {
  NormFnConfig c;
  c.stage = NormFnStage::Slab, c.width = width, c.weighted = weighted, c.accumulate = accumulate;
  return c;
}

/// The backward's Norm and Slab kernels compiled side by side (tk_context_s::prepare), their schedules resolved as
/// the runs that follow resolve them (Slab last: the call is logged by it).
void prepareBackward(tk_context ctx, NormFnConfig norm, bool weighted, bool accumulate,
                     const std::vector<const tk_tensor *> &tensors) {
  NormFnConfig slab = slabConfig(norm.width, weighted, accumulate);
  tk::compiler::Target target;
  if (ctx->targetFor(tensors, target).isOk() && normFnSchedule(true).resolve(ctx, target, norm).isOk() &&
      normFnSchedule(true).resolve(ctx, target, slab).isOk())
    ctx->prepare(
        {tk::runtime::factoryOf(TK_PROGRAM(buildNormFn), norm), tk::runtime::factoryOf(TK_PROGRAM(buildNormFn), slab)},
        tensors);
}

void residualAndFn(Arguments &args, const tk_tensor *residual, const tk_tensor *fn, const tk_tensor *normWeight) {
  args.tensor("residual", residual, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
  args.tensor("fn", fn, {"n3", "G"}, {TK_F32}, Layout::Contiguous);
  args.tensor("norm_weight", normWeight, {"G"}, {TK_F32}, Layout::Contiguous, true);
}
} // namespace

extern "C" tk_status tk_mhc_pre_norm_fn_fwd(tk_context ctx, const tk_tensor *residual, const tk_tensor *fn,
                                            const tk_tensor *norm_weight, float eps, tk_tensor *mix, tk_tensor *mul,
                                            tk_tensor *ss, tk_stream stream) {
  const char *op = "tk_mhc_pre_norm_fn_fwd";
  return tk::kernels::guardCall(
      op, {{"residual", residual}, {"fn", fn}, {"norm_weight", norm_weight}}, {{"mix", mix}, {"mul", mul}, {"ss", ss}},
      [&] {
        Arguments args(op);
        args.require(ctx != nullptr, "ctx is null");
        residualAndFn(args, residual, fn, norm_weight);
        args.tensor("mix", mix, {"T", "n3"}, {TK_F32}, Layout::Contiguous);
        args.tensor("mul", mul, {"T", "n3"}, {TK_F32}, Layout::Contiguous, true);
        args.tensor("ss", ss, {"T"}, {TK_F32}, Layout::Contiguous, true);
        if (Status s = checkNormFnLimits(op, args, eps); !s.isOk())
          return tk::runtime::report(s);
        const int64_t t = args["T"], n3 = args["n3"];
        if (t == 0)
          return tk::runtime::report(Status::ok());
        // mul and ss are what the backward needs; without them they go to scratch memory.
        tk::runtime::Scratch scratch;
        tk_tensor mulT, ssT;
        if (!mul || !ss) {
          if (Status s = scratch.allocateOnStream(ctx, *mix, (size_t)(t * (n3 + 1) * 4), stream); !s.isOk())
            return tk::runtime::report(s);
          mulT = scratch.tensor(TK_F32, t, n3);
          ssT = scratch.tensor(TK_F32, t, 1);
          ssT.data = static_cast<char *>(mulT.data) + t * n3 * 4;
        }
        if (mul)
          mulT = *mul;
        if (ss)
          ssT = withUnitDim(ss, 1);
        NormFnConfig c;
        c.width = args["G"], c.weighted = norm_weight != nullptr;
        tk_tensor x = mergedLastTwo(residual), w1 = norm_weight ? withUnitDim(norm_weight, 0) : tk_tensor{};
        return tk::runtime::report(
            runNormFnForward(ctx, c, x, fn, norm_weight ? &w1 : nullptr, mix, &mulT, &ssT, eps, stream));
      });
}

extern "C" tk_status tk_mhc_pre_norm_fn_bwd(tk_context ctx, const tk_tensor *grad_mix, const tk_tensor *residual,
                                            const tk_tensor *fn, const tk_tensor *norm_weight, const tk_tensor *mul,
                                            const tk_tensor *ss, float eps, int accumulate, tk_tensor *grad_residual,
                                            tk_tensor *grad_fn, tk_tensor *grad_norm_weight, tk_stream stream) {
  const char *op = "tk_mhc_pre_norm_fn_bwd";
  return tk::kernels::guardCall(
      op,
      {{"grad_mix", grad_mix},
       {"residual", residual},
       {"fn", fn},
       {"norm_weight", norm_weight},
       {"mul", mul},
       {"ss", ss}},
      {{"grad_residual", grad_residual}, {"grad_fn", grad_fn}, {"grad_norm_weight", grad_norm_weight}}, [&] {
        Arguments args(op);
        args.require(ctx != nullptr, "ctx is null");
        args.tensor("grad_mix", grad_mix, {"T", "n3"}, {TK_F32}, Layout::Contiguous);
        residualAndFn(args, residual, fn, norm_weight);
        args.tensor("mul", mul, {"T", "n3"}, {TK_F32}, Layout::Contiguous);
        args.tensor("ss", ss, {"T"}, {TK_F32}, Layout::Contiguous);
        args.require(accumulate == 0 || accumulate == 1,
                     "accumulate must be 0 or 1, got " + std::to_string(accumulate));
        args.tensor("grad_residual", grad_residual, {"T", "n", "H"}, {TK_BF16}, Layout::Contiguous);
        args.tensor("grad_fn", grad_fn, {"n3", "G"}, {TK_F32}, Layout::Contiguous);
        args.tensor("grad_norm_weight", grad_norm_weight, {"G"}, {TK_F32}, Layout::Contiguous, true);
        args.require((grad_norm_weight != nullptr) == (norm_weight != nullptr),
                     "grad_norm_weight must be given exactly when norm_weight is");
        if (Status s = checkNormFnLimits(op, args, eps); !s.isOk())
          return tk::runtime::report(s);
        const int64_t t = args["T"], g = args["G"];
        tk::compiler::Target target;
        if (Status s = ctx->targetFor({grad_mix, residual, fn, mul, ss, grad_residual, grad_fn}, target); !s.isOk())
          return tk::runtime::report(s);
        // dmul (T, 32), the same transposed (32, T) and dss (T) from the per-token kernel; for T = 0 one zero token
        // instead (and a zero residual row and its gradient's), so that the slab kernel writes zero parameter
        // gradients.
        const int64_t held = std::max<int64_t>(t, 1);
        // The transposed rows padded to 4 tokens (16 bytes), as the kernels' accesses need.
        const int64_t paddedT = (held + 3) / 4 * 4;
        const size_t dmulBytes = (size_t)held * kNormFnMaxMixes * 4,
                     transposedBytes = (size_t)paddedT * kNormFnMaxMixes * 4;
        tk::runtime::Scratch scratch;
        const size_t normBytes = ((dmulBytes + 15) / 16 * 16 + transposedBytes + (size_t)held * 4 + 15) / 16 * 16;
        const size_t bytes = normBytes + (t == 0 ? 4 * (size_t)g : 0);
        if (Status s = scratch.allocateOnStream(ctx, *grad_fn, bytes, stream); !s.isOk())
          return tk::runtime::report(s);
        tk_tensor dmul = scratch.tensor(TK_F32, held, kNormFnMaxMixes),
                  dmulT = scratch.tensor(TK_F32, kNormFnMaxMixes, paddedT), dss = scratch.tensor(TK_F32, held, 1);
        dmulT.shape[1] = held;
        dmulT.data = static_cast<char *>(dmul.data) + (dmulBytes + 15) / 16 * 16;
        dss.data = static_cast<char *>(dmulT.data) + transposedBytes;
        tk_tensor x = mergedLastTwo(residual), gres = mergedLastTwo(grad_residual);
        if (t == 0) {
          if (Status s = scratch.zeroOnStream(stream); !s.isOk())
            return tk::runtime::report(s);
          x = scratch.tensor(TK_BF16, 1, g), gres = scratch.tensor(TK_BF16, 1, g);
          x.data = static_cast<char *>(dmul.data) + normBytes, gres.data = static_cast<char *>(x.data) + 2 * g;
        } else {
          NormFnConfig n;
          n.stage = NormFnStage::Norm, n.width = g;
          prepareBackward(ctx, n, norm_weight != nullptr, accumulate != 0, {grad_mix, grad_fn});
          tk_tensor ss1 = withUnitDim(ss, 1);
          if (Status s =
                  runScheduled(ctx, normFnSchedule(true), TK_PROGRAM(buildNormFn), n,
                               {grad_mix, mul, &ss1, &dmul, &dmulT, &dss}, stream, {tk::runtime::f32Scalar(eps)});
              !s.isOk())
            return tk::runtime::report(s);
        }
        NormFnConfig c = slabConfig(g, norm_weight != nullptr, accumulate != 0 && t > 0);
        tk_tensor w1 = norm_weight ? withUnitDim(norm_weight, 0) : tk_tensor{},
                  gw1 = grad_norm_weight ? withUnitDim(grad_norm_weight, 0) : tk_tensor{};
        std::vector<const tk_tensor *> tensors = {&x, &dmul, &dmulT, &dss, fn};
        if (norm_weight)
          tensors.push_back(&w1);
        tensors.insert(tensors.end(), {&gres, grad_fn});
        if (norm_weight)
          tensors.push_back(&gw1);
        return tk::runtime::report(
            runScheduled(ctx, normFnSchedule(true), TK_PROGRAM(buildNormFn), c, tensors, stream));
      });
}

TK_REGISTER_OPERATORS(norm_fn) {
  for (bool backward : {false, true}) {
    registerSchedule(normFnSchedule(backward));
    auto variant = [&](NormFnStage stage, int64_t h, bool weighted, bool acc = false) {
      NormFnConfig c;
      c.stage = stage, c.width = 4 * h, c.weighted = weighted, c.accumulate = acc;
      const char *name = stage == NormFnStage::Forward ? "mhc_pre_norm_fn_fwd"
                         : stage == NormFnStage::Norm  ? "mhc_pre_norm_fn_bwd_norm"
                                                       : "mhc_pre_norm_fn_bwd";
      return KernelVariant{std::string(name) + ".n4.h" + std::to_string(h) + (weighted ? ".w" : "") +
                               (acc ? ".acc" : ""),
                           scheduledFactory(normFnSchedule(backward), TK_PROGRAM(buildNormFn), c)};
    };
    std::vector<KernelVariant> variants;
    if (!backward) {
      variants = {variant(NormFnStage::Forward, 7168, false), variant(NormFnStage::Forward, 7168, true)};
      // The split forward's finish kernel, for the default's splits.
      NormFnConfig forward, finish;
      forward.width = finish.width = 4 * 7168;
      finish.stage = NormFnStage::Finish, finish.splits = forward.numSplits();
      variants.push_back({"mhc_pre_norm_fn_fwd_finish.n4.h7168.s" + std::to_string(finish.splits),
                          tk::runtime::factoryOf(TK_PROGRAM(buildNormFn), finish)});
    } else
      variants = {variant(NormFnStage::Norm, 7168, false), variant(NormFnStage::Slab, 7168, false, true),
                  variant(NormFnStage::Slab, 7168, true, false)};
    registerOperator({backward ? "mhc_pre_norm_fn_bwd" : "mhc_pre_norm_fn_fwd", "mhc",
                      backward ? "tk_mhc_pre_norm_fn_bwd" : "tk_mhc_pre_norm_fn_fwd",
                      backward ? "the residual's gradient (optionally accumulated), fn's and the norm weight's: "
                                 "per-token norms, then column slabs walking every token with tensor-core products"
                               : "RMS-normalised mix logits: the residual row against fn on tensor cores (TF32), "
                                 "the sum of squares beside it",
                      variants});
  }
}
