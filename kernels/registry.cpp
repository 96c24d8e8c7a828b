//===- registry.cpp -------------------------------------------------------===//
#include "kernels/registry.h"
#include "kernels/quant/cast_back.h"
#include "kernels/quant/per_block_cast.h"
#include "kernels/quant/per_block_cast_lossless.h"
#include "kernels/quant/per_channel_cast.h"
#include "kernels/quant/per_token_cast.h"
#include "kernels/quant/swiglu_backward.h"
#include "kernels/quant/swiglu_per_token_cast.h"
#include "kernels/transpose/batched_transpose.h"

#include <cstdio>

namespace tk::kernels {

static KernelVariant perTokenCastVariant(const std::string &name, quant::PerTokenCastConfig c,
                                         quant::PerTokenMode mode = quant::PerTokenMode::Cast) {
  c.mode = mode;
  c.xContiguous = true; // what the C API compiles for contiguous rows, the common case
  return {name, scheduledFactory(quant::perTokenCastSchedule(), quant::buildPerTokenCast, c)};
}

static quant::PerTokenCastConfig e2m1(quant::PerTokenCastConfig c) {
  c.out = quant::Format::E2M1;
  return c;
}

static quant::PerTokenCastConfig e5m6(quant::PerTokenCastConfig c) {
  c.out = quant::Format::E5M6;
  return c;
}

static quant::PerTokenCastConfig packedUe8m0(quant::PerTokenCastConfig c) {
  c.packedSf = true;
  return c;
}

static quant::PerTokenCastConfig requant(quant::PerTokenCastConfig c, int64_t bIn, int64_t gIn) {
  c.in = dsl::DType::F8E4M3;
  c.inBlockM = bIn;
  c.inBlockK = gIn;
  return c;
}

const std::vector<const ScheduledOperator *> &scheduledOperators() {
  static const std::vector<const ScheduledOperator *> ops = {
      &quant::perTokenCastSchedule(),     &quant::perChannelCastSchedule(), &quant::perBlockLosslessSchedule(),
      &quant::swigluPerTokenSchedule(),   &quant::swigluBackwardSchedule(), &transpose::transposeSchedule(),
  };
  return ops;
}

const std::vector<ShippedKernel> &shippedKernels() {
  static const std::vector<ShippedKernel> kernels = [] {
    using dsl::DType;
    std::vector<ShippedKernel> list;
    list.push_back({"per_token_cast", "quant", "tk_per_token_cast",
                    "1 x g group absmax -> scale -> e4m3 cast, fp32 scale factors",
                    {perTokenCastVariant("per_token_cast.bf16.k7168.g128", {7168, 128, DType::BF16, false}),
                     perTokenCastVariant("per_token_cast.f32.k7168.g128.round", {7168, 128, DType::F32, true}),
                     perTokenCastVariant("per_token_cast.bf16.k2560.g32.round", {2560, 32, DType::BF16, true}),
                     perTokenCastVariant("per_token_cast.bf16.k576.g576", {576, 576, DType::BF16, false}),
                     perTokenCastVariant("per_token_cast.bf16.k7168.g7168", {7168, 7168, DType::BF16, false}),
                     perTokenCastVariant("per_token_cast.bf16.k7168.g32.round.e2m1",
                                         e2m1({7168, 32, DType::BF16, true})),
                     perTokenCastVariant("per_token_cast.f32.k7168.g7168.round.e5m6",
                                         e5m6({7168, 7168, DType::F32, true})),
                     perTokenCastVariant("per_token_cast.bf16.k7168.g128.round.ue8m0",
                                         packedUe8m0({7168, 128, DType::BF16, true})),
                     perTokenCastVariant("per_token_cast.e4m3.k7168.g128.in128x128",
                                         requant({7168, 128, DType::BF16, true}, 128, 128)),
                     perTokenCastVariant("per_token_cast.e2m1.k7168.g32.in32x32.e2m1", [] {
                       quant::PerTokenCastConfig c = e2m1(requant({7168, 32, DType::BF16, true}, 32, 32));
                       c.in = DType::I8; // packed FP4 input
                       return c;
                     }())}});
    list.push_back({"per_token_cast_with_sf_only", "quant", "tk_per_token_cast_with_sf_only",
                    "the scale factors of per_token_cast only",
                    {perTokenCastVariant("per_token_cast_with_sf_only.bf16.k7168.g128.round",
                                         {7168, 128, DType::BF16, true}, quant::PerTokenMode::SfOnly)}});
    list.push_back({"per_token_cast_with_precomputed_sf", "quant", "tk_per_token_cast_with_precomputed_sf",
                    "e4m3 cast with caller-given per-token scale factors",
                    {perTokenCastVariant("per_token_cast_with_precomputed_sf.bf16.k7168.g128",
                                         {7168, 128, DType::BF16, false}, quant::PerTokenMode::PrecomputedSf)}});
    auto perBlock = [](const std::string &name, quant::PerBlockCastConfig c, quant::PerBlockMode mode) {
      c.mode = mode;
      return KernelVariant{name, runtime::factoryOf(quant::buildPerBlockCast, c)};
    };
    using quant::PerBlockMode;
    list.push_back({"per_block_cast", "quant", "tk_per_block_cast",
                    "b x g block absmax -> scale -> e4m3 cast, fp32 scale factors",
                    {perBlock("per_block_cast.bf16.k7168.b128.g128", {7168, 128, 128, DType::BF16}, PerBlockMode::Cast),
                     perBlock("per_block_cast.f32.k7168.b32.g32.round", {7168, 32, 32, DType::F32, true},
                              PerBlockMode::Cast),
                     perBlock("per_block_cast.bf16.k7168.b128.g128.round.ue8m0",
                              [] {
                                quant::PerBlockCastConfig c{7168, 128, 128, DType::BF16, true};
                                c.packedSf = true;
                                return c;
                              }(),
                              PerBlockMode::Cast)}});
    list.push_back({"per_block_cast_with_sf_only", "quant", "tk_per_block_cast_with_sf_only",
                    "the scale factors of per_block_cast only",
                    {perBlock("per_block_cast_with_sf_only.bf16.k7168.b128.g128.round",
                              {7168, 128, 128, DType::BF16, true}, PerBlockMode::SfOnly)}});
    list.push_back({"per_block_cast_with_precomputed_sf", "quant", "tk_per_block_cast_with_precomputed_sf",
                    "e4m3 cast with caller-given per-block scale factors",
                    {perBlock("per_block_cast_with_precomputed_sf.bf16.k7168.b128.g128",
                              {7168, 128, 128, DType::BF16}, PerBlockMode::PrecomputedSf)}});
    auto perChannel = [](const std::string &name, quant::PerChannelCastConfig c) {
      return KernelVariant{name, scheduledFactory(quant::perChannelCastSchedule(), quant::buildPerChannelCast, c)};
    };
    auto lossless = [](const std::string &name, quant::PerBlockLosslessConfig c) {
      return KernelVariant{name,
                           scheduledFactory(quant::perBlockLosslessSchedule(), quant::buildPerBlockCastLossless, c)};
    };
    list.push_back({"per_block_cast_lossless", "quant", "tk_per_block_cast_lossless",
                    "FP4 with power-of-two scales -> e4m3 with larger blocks, exactly",
                    {lossless("per_block_cast_lossless.k7168.in1x32.out1x128", {7168, 1, 32, 1, 128}),
                     lossless("per_block_cast_lossless.k7168.in1x32.out32x32", {7168, 1, 32, 32, 32}),
                     lossless("per_block_cast_lossless.k7168.in1x32.out128x128", {7168, 1, 32, 128, 128}),
                     lossless("per_block_cast_lossless.k7168.in1x32.out1x128.ue8m0", [] {
                       quant::PerBlockLosslessConfig c{7168, 1, 32, 1, 128};
                       c.inPackedSf = c.outPackedSf = true;
                       return c;
                     }())}});
    list.push_back({"per_channel_cast", "quant", "tk_per_channel_cast",
                    "128 x 1 (per-column) absmax -> scale -> e4m3 cast",
                    {perChannel("per_channel_cast.bf16.k7168.b128", {7168, 128, DType::BF16, false, false}),
                     perChannel("per_channel_cast.f32.k7168.b128.round", {7168, 128, DType::F32, true, false})}});
    list.push_back({"per_channel_cast_fused", "quant", "tk_per_channel_cast_fused",
                    "per_channel_cast of a gathered (pos_to_token) and/or per-token quantized input",
                    {perChannel("per_channel_cast_fused.e4m3.k7168.b128", {7168, 128, DType::F8E4M3, false, false}),
                     perChannel("per_channel_cast_fused.bf16.k7168.b128.gather", [] {
                       quant::PerChannelCastConfig c{7168, 128, DType::BF16, true, false};
                       c.rowGather = true;
                       return c;
                     }()),
                     perChannel("per_channel_cast_fused.e4m3.k7168.b128.gather", [] {
                       quant::PerChannelCastConfig c{7168, 128, DType::F8E4M3, false, false};
                       c.rowGather = true;
                       return c;
                     }())}});
    list.push_back({"per_channel_cast_and_transpose", "quant", "tk_per_channel_cast_and_transpose",
                    "b x 1 e4m3 cast written transposed (K-major)",
                    {perChannel("per_channel_cast_and_transpose.bf16.k7168.b128", {7168, 128, DType::BF16, false, true}),
                     perChannel("per_channel_cast_and_transpose.bf16.k7168.b32.round",
                                {7168, 32, DType::BF16, true, true})}});
    auto backwardConfig = [](const std::string &name, int64_t h, int64_t g, std::optional<float> clamp) {
      quant::SwigluBackwardConfig c;
      c.hidden = h, c.group = g, c.roundSf = true, c.clamp = clamp;
      return c;
    };
    auto swigluBackward = [](const std::string &name, const quant::SwigluBackwardConfig &c) {
      return KernelVariant{name, scheduledFactory(quant::swigluBackwardSchedule(), quant::buildSwigluBackward, c)};
    };
    const quant::SwigluBackwardConfig g128 = backwardConfig("swiglu_backward.h7168.g128", 7168, 128, {});
    // The weight gradient sums the chunks of the g128 kernel, as scheduled for the target.
    runtime::KernelFactory weightGrad = runtime::factoryOf(quant::buildWeightGradFromRowDots, quant::WeightGradConfig{});
    weightGrad.build = [g128](mlir::MLIRContext &ctx, const compiler::Target &target) {
      quant::SwigluBackwardConfig c = g128;
      runtime::ScheduleChoice choice;
      if (runtime::Status s = quant::swigluBackwardSchedule().choose(runtime::ScheduleSettings::fromEnvironment(),
                                                                      target, c, choice);
          !s.isOk())
        throw std::invalid_argument(s.message());
      return quant::buildWeightGradFromRowDots(ctx, quant::WeightGradConfig{c.numChunks()});
    };
    list.push_back({"swiglu_backward_and_per_token_cast", "quant", "tk_swiglu_backward_and_per_token_cast",
                    "SwiGLU backward from e4m3 input: bf16 + per-token e4m3 gradients, weight gradient",
                    {swigluBackward("swiglu_backward.h7168.g128", g128),
                     swigluBackward("swiglu_backward.h7168.g32.clamp0.5",
                                    backwardConfig("swiglu_backward.h7168.g32.clamp0.5", 7168, 32, 0.5f)),
                     KernelVariant{"swiglu_backward.weight_grad.h7168", weightGrad}}});
    auto swigluToken = [](const std::string &name, quant::SwigluPerTokenCastConfig c) {
      return KernelVariant{name, scheduledFactory(quant::swigluPerTokenSchedule(), quant::buildSwigluPerTokenCast, c)};
    };
    auto swigluTokenConfig = [](int64_t h, int64_t g, bool routed, std::optional<float> clamp) {
      quant::SwigluPerTokenCastConfig c;
      c.hidden = h, c.group = g, c.roundSf = true, c.weights = c.expertMask = routed;
      c.clamp = clamp, c.countClamps = clamp.has_value();
      c.wholeTiles = true; // as the benchmark's row counts
      return c;
    };
    list.push_back({"swiglu_forward_and_per_token_cast", "quant", "tk_swiglu_forward_and_per_token_cast",
                    "SwiGLU (device expf) x routing weight -> per-token e4m3, clamp counts",
                    {swigluToken("swiglu_per_token.h2048.g128.weights", swigluTokenConfig(2048, 128, true, {})),
                     swigluToken("swiglu_per_token.h2048.g128.clamp0.5.count", swigluTokenConfig(2048, 128, true, 0.5f)),
                     swigluToken("swiglu_per_token.h3584.gH.clamp10.count", swigluTokenConfig(3584, 3584, false, 10.0f)),
                     swigluToken("swiglu_per_token.h1024.g128.ue8m0", [&] {
                       quant::SwigluPerTokenCastConfig c = swigluTokenConfig(1024, 128, false, {});
                       c.packedSf = true;
                       return c;
                     }())}});
    auto swiglu = [](int64_t b, bool transposed, std::optional<float> clamp) {
      quant::PerChannelCastConfig c{7168, b, DType::BF16, false, transposed};
      c.swiglu = true;
      c.clamp = clamp;
      return c;
    };
    list.push_back({"swiglu_forward_and_per_channel_cast_and_transpose", "quant",
                    "tk_swiglu_forward_and_per_channel_cast_and_transpose",
                    "SwiGLU (device expf) -> bf16 -> b x 1 e4m3 cast, transposed or not",
                    {perChannel("swiglu_per_channel.h7168.b128.transposed", swiglu(128, true, {})),
                     perChannel("swiglu_per_channel.h7168.b32.clamp0.5", swiglu(32, false, 0.5f))}});
    auto castBack = [](const std::string &name, quant::CastBackConfig c) {
      return KernelVariant{name, runtime::factoryOf(quant::buildCastBack, c)};
    };
    list.push_back({"cast_back", "quant", "tk_cast_back", "e4m3, e2m1 or e5m6 x block scale factor -> bf16 or fp32",
                    {castBack("cast_back.e4m3.k7168.b1.g128.bf16", {7168, 1, 128, DType::BF16}),
                     castBack("cast_back.e4m3.k7168.b128.g128.f32", {7168, 128, 128, DType::F32}),
                     castBack("cast_back.e4m3.k7168.b128.g1.bf16", {7168, 128, 1, DType::BF16}),
                     castBack("cast_back.e4m3.k576.b1.g576.bf16", {576, 1, 576, DType::BF16}),
                     castBack("cast_back.e2m1.k7168.b1.g32.bf16", [] {
                       quant::CastBackConfig c{7168, 1, 32, DType::BF16};
                       c.in = quant::Format::E2M1;
                       return c;
                     }()),
                     castBack("cast_back.e5m6.k7168.b1.g7168.bf16", [] {
                       quant::CastBackConfig c{7168, 1, 7168, DType::BF16};
                       c.in = quant::Format::E5M6;
                       return c;
                     }()),
                     castBack("cast_back.e4m3.k7168.b1.g128.bf16.ue8m0", [] {
                       quant::CastBackConfig c{7168, 1, 128, DType::BF16};
                       c.packedSf = true;
                       return c;
                     }())}});
    auto transposeVariant = [](const std::string &name, transpose::TransposeConfig c) {
      return KernelVariant{name, scheduledFactory(transpose::transposeSchedule(), transpose::buildBatchedTranspose, c)};
    };
    list.push_back({"batched_transpose", "transpose", "tk_batched_transpose",
                    "out[b, c, r] = x[b, r, c], tiles through a swizzled shared buffer (128 x 128 for 1- and 2-byte elements where 128 divides both dimensions, else 64 x 64)",
                    {transposeVariant("batched_transpose.b16.r4096.c7168", {4096, 7168, DType::I16}),
                     transposeVariant("batched_transpose.b8.r4096.c7168", {4096, 7168, DType::I8}),
                     transposeVariant("batched_transpose.b32.r4096.c7168", {4096, 7168, DType::I32})}});
    list.push_back({"transpose", "transpose", "tk_transpose", "2-D transpose (batched_transpose with one batch)",
                    {transposeVariant("transpose.b16.r8064.c7168", {8064, 7168, DType::I16})}});
    return list;
  }();
  return kernels;
}

} // namespace tk::kernels
