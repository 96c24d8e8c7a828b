// DSL -> PTX for every target, through the runtime's compile entry.
#include "kernels/mhc/norm_fn.h"
#include "kernels/moe/histogram.h"
#include "kernels/quant/per_channel_cast.h"
#include "kernels/quant/per_token_cast.h"
#include "kernels/quant/swiglu_backward.h"
#include "kernels/quant/swiglu_per_token_cast.h"
#include "kernels/transpose/batched_transpose.h"
#include "tests/kernels/logistic_quotients.h"
#include "tk/compiler/Registration.h"
#include "tk/compiler/Target/Pipeline.h"
#include "tk/runtime/JitCache.h"

#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace tk;

namespace {

/// The PTX of the kernel `factory` builds, for `target`.
std::string compileKernel(const runtime::KernelFactory &factory, const std::string &target = "sm_90a") {
  runtime::CompiledKernel out;
  auto t = compiler::findTarget(target);
  EXPECT_TRUE(t);
  runtime::Status s = runtime::compileKernel(factory, *t, out);
  EXPECT_TRUE(s.isOk()) << s.message();
  return out.ptx;
}

std::string compile(const kernels::quant::PerTokenCastConfig &c, const std::string &target) {
  return compileKernel([c](mlir::MLIRContext &ctx) { return kernels::quant::buildPerTokenCast(ctx, c); }, target);
}

std::string compile(const kernels::quant::PerChannelCastConfig &c) {
  return compileKernel([c](mlir::MLIRContext &ctx) { return kernels::quant::buildPerChannelCast(ctx, c); });
}

/// The in-memory cache key of a kernel with config key `config` for
/// `target`, under the environment's compile options.
std::string cacheKey(const std::string &config, const compiler::Target &target) {
  return runtime::JitCache::memoryKey(runtime::KernelFactory(nullptr, config, {}), target,
                                      compiler::CompileOptions::fromEnvironment().cacheTag());
}

size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
    ++n;
  return n;
}

/// The error of compiling `c` for sm_90a ("" when it compiles).
std::string compileError(const kernels::quant::PerTokenCastConfig &c) {
  runtime::CompiledKernel out;
  runtime::Status st = runtime::compileKernel(
      [c](mlir::MLIRContext &ctx) { return kernels::quant::buildPerTokenCast(ctx, c); },
      *compiler::findTarget("sm_90a"), out);
  return st.isOk() ? "" : st.message();
}

// tk's lowering to NVVM is upstream's pipeline pass for pass; tile-noalias-params is its one addition, after the
// kernels reach the LLVM dialect and before the binary.
TEST(Compile, NvvmLoweringIsUpstreamsPlusNoAliasParams) {
  mlir::gpu::GPUToNVVMPipelineOptions o;
  o.cubinChip = "sm_90a", o.cubinFeatures = "+ptx80", o.cubinFormat = "isa", o.optLevel = 3;
  auto text = [](mlir::OpPassManager &pm) {
    std::string s;
    llvm::raw_string_ostream os(s);
    pm.printAsTextualPipeline(os);
    return s;
  };
  mlir::OpPassManager upstream("builtin.module"), without("builtin.module"), with("builtin.module");
  mlir::gpu::buildLowerToNVVMPassPipeline(upstream, o);
  compiler::buildNvvmLowering(without, o, /*noAliasParams=*/false);
  compiler::buildNvvmLowering(with, o, /*noAliasParams=*/true);
  EXPECT_EQ(text(without), text(upstream));
  std::string ours = text(with);
  EXPECT_NE(ours.find("gpu.module(reconcile-unrealized-casts),tile-noalias-params,gpu-to-llvm"), std::string::npos)
      << ours;
}

TEST(Compile, PerTokenCastPtxPerTarget) {
  kernels::quant::PerTokenCastConfig c{7168, 128, dsl::DType::BF16, true};
  std::string sm90 = compile(c, "sm_90a"), sm80 = compile(c, "sm_80"), sm100 = compile(c, "sm_100a");
  EXPECT_NE(sm90.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(sm80.find(".target sm_80"), std::string::npos);
  EXPECT_NE(sm100.find(".target sm_100a"), std::string::npos);
  // Hardware e4m3 conversion on sm_89+, integer emulation on sm_80.
  EXPECT_EQ(count(sm90, "cvt.rn.satfinite.e4m3x2.f32"), 8u); // 2 rows x 8 elements per thread
  EXPECT_EQ(count(sm80, "cvt.rn.satfinite.e4m3x2"), 0u);
  // 16-byte loads and stores; IEEE division; butterfly shuffles.
  EXPECT_GE(count(sm90, "ld.global.v4.b32"), 2u);
  EXPECT_GE(count(sm90, "st.global.v2.b32"), 2u);
  EXPECT_GE(count(sm90, "shfl.sync.bfly"), 3u);
  EXPECT_EQ(count(sm90, "div.approx"), 0u);
  // The e4m3 pairs are stored as 16-bit words: no byte permutes to pack them.
  EXPECT_EQ(count(sm90, "prmt"), 0u);
  EXPECT_EQ(count(sm100, "prmt"), 0u);
}

// A kernel whose schedule asks for dependent launch with the early signal (group_count's counting kernel, pdl=1) lets
// the next grid launch and waits for the one before it, on sm_90+, ahead of its first global access, and its PTX header
// says so (the runtime launches only such kernels with programmatic stream serialization); sm_80 has neither, nor a
// kernel that does not ask. Every kernel at once (tk-opt's tile-to-ptx{dependent-launch=true}) is a cache key of its
// own.
TEST(Compile, DependentLaunchWaitsForTheKernelBefore) {
  kernels::quant::PerTokenCastConfig plainConfig{7168, 128, dsl::DType::BF16, true};
  std::string plain = compile(plainConfig, "sm_90a");
  EXPECT_FALSE(compiler::dependentLaunch(plain, "per_token_cast"));
  EXPECT_EQ(count(plain, "griddepcontrol"), 0u);
  kernels::moe::HistogramConfig c;
  c.stage = kernels::moe::HistogramConfig::Stage::Count, c.pdl = 1;
  const std::string name = "group_count";
  auto build = [c](mlir::MLIRContext &ctx) { return kernels::moe::buildHistogram(ctx, c); };
  for (const char *target : {"sm_90a", "sm_100a"}) {
    std::string ptx = compileKernel(build, target);
    EXPECT_TRUE(compiler::dependentLaunch(ptx, name)) << target;
    EXPECT_FALSE(compiler::dependentLaunch(ptx, name + "_other")) << target;
    EXPECT_EQ(count(ptx, "griddepcontrol.launch_dependents;"), 1u) << target;
    EXPECT_EQ(count(ptx, "griddepcontrol.wait;"), 1u) << target;
    size_t wait = ptx.find("griddepcontrol.wait;"), load = ptx.find("ld.global");
    EXPECT_LT(ptx.find("griddepcontrol.launch_dependents;"), wait) << target;
    EXPECT_LT(wait, load) << target;
  }
  compiler::CompileOptions every;
  every.dependentLaunch = true;
  EXPECT_NE(every.cacheTag(), compiler::CompileOptions().cacheTag());
  std::string sm80 = compileKernel(build, "sm_80");
  EXPECT_FALSE(compiler::dependentLaunch(sm80, name));
  EXPECT_EQ(count(sm80, "griddepcontrol"), 0u);
  // The header is read from the header lines only, not from the PTX's body.
  EXPECT_FALSE(compiler::dependentLaunch("//\n// tk.dependent_launch per_token_cast\n", "per_token_cast"));
  EXPECT_TRUE(compiler::dependentLaunch("// tk.dynamic_shared_memory k 65536\n// tk.dependent_launch k\n//\n", "k"));
}

TEST(Compile, UnalignedRowsFallBackToNarrowLoads) {
  kernels::quant::PerTokenCastConfig c{7168, 128, dsl::DType::BF16, false, /*xAlignBytes=*/2};
  std::string ptx = compile(c, "sm_90a");
  EXPECT_EQ(count(ptx, "ld.global.v4.b32"), 0u);
  EXPECT_GT(count(ptx, "ld.global"), 0u);
}

// TK_ABLATE switches passes off for ablation runs: narrower accesses, software
// e4m3; ablated kernels get their own cache keys; unknown names are errors.
TEST(Compile, AblationsSwitchPassesOff) {
  kernels::quant::PerTokenCastConfig c{7168, 128, dsl::DType::BF16, true};
  auto sm90 = *compiler::findTarget("sm_90a");
  std::string normalKey = cacheKey(c.key(), sm90);
  setenv("TK_ABLATE", "vectorize", 1);
  std::string narrow = compile(c, "sm_90a");
  EXPECT_EQ(count(narrow, "ld.global.v4.b32"), 0u);
  EXPECT_GT(count(narrow, "ld.global.b32"), 0u);
  EXPECT_NE(cacheKey(c.key(), sm90), normalKey);
  setenv("TK_ABLATE", "fp8-hardware", 1);
  std::string software = compile(c, "sm_90a");
  EXPECT_EQ(count(software, "cvt.rn.satfinite.e4m3x2"), 0u);
  EXPECT_GE(count(software, "ld.global.v4.b32"), 2u);
  // Layout inference and fusion off: values move through shared memory
  // (tile.relayout), each move between two block barriers.
  std::string normal = compile(c, "sm_90a");
  setenv("TK_ABLATE", "layout-inference", 1);
  std::string uninferred = compile(c, "sm_90a");
  EXPECT_GE(count(uninferred, "bar.sync"), count(normal, "bar.sync") + 4) << uninferred;
  EXPECT_GT(count(uninferred, "st.shared"), count(normal, "st.shared"));
  setenv("TK_ABLATE", "fusion", 1);
  std::string unfused = compile(c, "sm_90a");
  EXPECT_GE(count(unfused, "bar.sync"), count(uninferred, "bar.sync")) << unfused;
  EXPECT_GT(count(unfused, "ld.shared"), count(normal, "ld.shared"));
  EXPECT_NE(cacheKey(c.key(), sm90), normalKey);
  setenv("TK_ABLATE", "layouts", 1);
  std::string error = compileError(c);
  EXPECT_NE(error.find("TK_ABLATE: unknown pass 'layouts'"), std::string::npos) << error;
  unsetenv("TK_ABLATE");
  EXPECT_EQ(cacheKey(c.key(), sm90), normalKey);
  // readonly_loads for every kernel (tk-opt's tile-to-ptx{readonly-loads=true}; no environment variable turns it
  // on): a cache key of its own. No shipped kernel asks for it: x is not loaded through ld.global.nc.
  EXPECT_EQ(count(compile(c, "sm_90a"), "ld.global.nc"), 0u);
  compiler::CompileOptions readonlyEverywhere;
  readonlyEverywhere.readonlyLoads = true;
  EXPECT_NE(readonlyEverywhere.cacheTag(), compiler::CompileOptions().cacheTag());
}

// tile.silu and tile.sigmoid (tile-logistic-quotients). Where two share x (the
// SwiGLU backward's x / t and 1 / t) the branch-free sequence: one
// rcp.approx.ftz per value of a thread for both (8: its 8 values per thread
// and chunk), no div.rn.f32 or rcp.rn.f32 of their own. A lone SiLU (SwiGLU
// forward; b = 32 without a transpose: 32 values per thread) takes the
// sequence under one range check per thread, with div.rn.f32 for every
// value in the branch taken when some |x| > 80. Only for sm_90a, where the
// exhaustive GPU check ran; TK_ABLATE=logistic-division switches it off
// (its own cache key). The exhaustive check's kernels take these forms too,
// or that check would compare div.rn.f32 with itself.
TEST(Compile, SharedLogisticDivisorsDivideWithoutSlowPath) {
  kernels::quant::SwigluBackwardConfig back;
  back.hidden = 7168, back.group = 128, back.roundSf = true;
  auto backward = [back](mlir::MLIRContext &ctx) { return kernels::quant::buildSwigluBackward(ctx, back); };
  std::string ptx = compileKernel(backward);
  EXPECT_EQ(count(ptx, "rcp.approx.ftz.f32"), 8u);
  EXPECT_EQ(count(ptx, "rcp.rn.f32"), 0u);
  size_t otherDivisions = count(ptx, "div.rn.f32");
  EXPECT_EQ(count(compileKernel(backward, "sm_100a"), "rcp.approx.ftz.f32"), 0u);
  EXPECT_EQ(count(compileKernel(backward, "sm_80"), "rcp.approx.ftz.f32"), 0u);
  EXPECT_EQ(count(compileKernel(test_kernels::logisticQuotients), "div.rn.f32"), 0u);
  EXPECT_GT(count(compileKernel(test_kernels::siluAlone), "rcp.approx.ftz.f32"), 0u);

  kernels::quant::PerChannelCastConfig forward;
  forward.hidden = 7168, forward.blockM = 32, forward.roundSf = true, forward.swiglu = true, forward.clamp = 0.5f;
  std::string guarded = compile(forward);
  EXPECT_EQ(count(guarded, "rcp.approx.ftz.f32"), 32u);
  EXPECT_EQ(count(guarded, ", 0f42A00000;"), 32u) << "one range check per value"; // |x| against 80
  size_t forwardDivisions = count(guarded, "div.rn.f32");
  EXPECT_GE(forwardDivisions, 32u); // the branch for |x| > 80

  auto sm90 = *compiler::findTarget("sm_90a");
  std::string normalKey = cacheKey("k", sm90);
  setenv("TK_ABLATE", "logistic-division", 1);
  std::string ieee = compileKernel(backward);
  EXPECT_EQ(count(ieee, "rcp.approx.ftz.f32"), 0u);
  EXPECT_EQ(count(ieee, "div.rn.f32"), otherDivisions + 8);
  EXPECT_EQ(count(ieee, "rcp.rn.f32"), 8u);
  EXPECT_EQ(count(compile(forward), "div.rn.f32"), forwardDivisions);
  EXPECT_EQ(count(compile(forward), "rcp.approx.ftz.f32"), 0u);
  EXPECT_NE(cacheKey("k", sm90), normalKey);
  unsetenv("TK_ABLATE");
}

// TK_LOGISTIC_GUARD=n: a range check and branch per n of a thread's values
// of a lone logistic division (a tuning experiment; its own cache key);
// values other than 0 and powers of two to 64 are refused.
TEST(Compile, LogisticGuardGroups) {
  kernels::quant::PerChannelCastConfig forward;
  forward.hidden = 7168, forward.blockM = 32, forward.roundSf = true, forward.swiglu = true, forward.clamp = 0.5f;
  auto sm90 = *compiler::findTarget("sm_90a");
  std::string normalKey = cacheKey(forward.key(), sm90);
  size_t whole = count(compile(forward), "bra.uni");
  setenv("TK_LOGISTIC_GUARD", "8", 1);
  std::string grouped = compile(forward);
  EXPECT_EQ(count(grouped, "rcp.approx.ftz.f32"), 32u);
  EXPECT_EQ(count(grouped, "bra.uni"), whole + 3) << "4 checks of 8 values instead of one of 32";
  EXPECT_NE(cacheKey(forward.key(), sm90), normalKey);
  setenv("TK_LOGISTIC_GUARD", "3", 1);
  runtime::CompiledKernel out;
  runtime::Status st = runtime::compileKernel(
      [forward](mlir::MLIRContext &ctx) { return kernels::quant::buildPerChannelCast(ctx, forward); }, sm90, out);
  EXPECT_NE(st.message().find("TK_LOGISTIC_GUARD must be a power of two"), std::string::npos) << st.message();
  unsetenv("TK_LOGISTIC_GUARD");
}

// The per-token SwiGLU kernel guards its SiLU divisions (a compare with 80
// per value) unless it counts clamps (QuotientForm::IeeeDiv),
// where it keeps div.rn.f32.
TEST(Compile, CountingSwigluKeepsIeeeDivision) {
  kernels::quant::SwigluPerTokenCastConfig c;
  c.hidden = 2048, c.weights = true, c.roundSf = true;
  auto build = [](const kernels::quant::SwigluPerTokenCastConfig &c) {
    return compileKernel([c](mlir::MLIRContext &ctx) { return kernels::quant::buildSwigluPerTokenCast(ctx, c); });
  };
  std::string guarded = build(c);
  EXPECT_GT(count(guarded, "0f42A00000"), 0u);
  EXPECT_GT(count(guarded, "rcp.approx.ftz.f32"), 0u);
  c.clamp = 0.5f, c.countClamps = true;
  std::string counting = build(c);
  EXPECT_EQ(count(counting, "0f42A00000"), 0u);
  EXPECT_EQ(count(counting, "rcp.approx.ftz.f32"), 0u);
  EXPECT_GT(count(counting, "div.rn.f32"), 0u);
}

// TK_MIN_BLOCKS_PER_SM: launch bounds for register experiments; the PTX asks
// ptxas for that many blocks per SM, and the kernels get their own cache keys.
// The bf16 transpose's shared buffer is swizzled (128 x 128 bf16, 32 KB, xor
// in its addressing); TK_ABLATE=swizzle pads its rows (16 bytes more each).
TEST(Compile, TransposeSwizzleAndItsAblation) {
  kernels::transpose::TransposeConfig c{4096, 7168, dsl::DType::I16};
  auto build = [c] {
    return compileKernel([c](mlir::MLIRContext &ctx) { return kernels::transpose::buildBatchedTranspose(ctx, c); });
  };
  std::string swizzled = build();
  EXPECT_NE(swizzled.find(".shared .align 16 .b8 __wg_batched_transpose_0[32768]"), std::string::npos) << swizzled;
  EXPECT_GT(count(swizzled, "xor.b"), 0u);
  setenv("TK_ABLATE", "swizzle", 1);
  std::string padded = build();
  unsetenv("TK_ABLATE");
  EXPECT_NE(padded.find("[34816]"), std::string::npos) << padded; // 128 rows of (128 + 8) x 2 bytes
  EXPECT_EQ(count(padded, "xor.b"), 0u);
}

// e4m3 transposes are swizzled too (128 x 128 bytes, 16 KB); TK_SWIZZLE_BYTES=2
// gives them padded rows again (a tuning experiment; its own cache key);
// sizes other than 1, 2 and 4 are refused.
TEST(Compile, ByteTransposeSwizzleAndItsSetting) {
  kernels::transpose::TransposeConfig c{4096, 7168, dsl::DType::I8};
  auto factory = [c](mlir::MLIRContext &ctx) { return kernels::transpose::buildBatchedTranspose(ctx, c); };
  auto sm90 = *compiler::findTarget("sm_90a");
  std::string normalKey = cacheKey("k", sm90);
  std::string swizzled = compileKernel(factory);
  EXPECT_NE(swizzled.find("__wg_batched_transpose_0[16384]"), std::string::npos) << swizzled;
  EXPECT_GT(count(swizzled, "xor.b"), 0u);
  setenv("TK_SWIZZLE_BYTES", "2", 1);
  std::string padded = compileKernel(factory);
  EXPECT_NE(cacheKey("k", sm90), normalKey);
  setenv("TK_SWIZZLE_BYTES", "3", 1);
  runtime::CompiledKernel out;
  runtime::Status st = runtime::compileKernel(factory, sm90, out);
  unsetenv("TK_SWIZZLE_BYTES");
  EXPECT_NE(padded.find("[18432]"), std::string::npos) << padded; // 128 rows of 128 + 16 bytes
  EXPECT_EQ(count(padded, "xor.b"), 0u);
  EXPECT_NE(st.message().find("TK_SWIZZLE_BYTES must be 1, 2 or 4"), std::string::npos) << st.message();
  EXPECT_EQ(cacheKey("k", sm90), normalKey);
}

// The pipelined SwiGLU per-channel kernel reads the thread index again in its
// loop over row tiles (the per-thread addresses computed there, not held
// across the loop); TK_ABLATE=loop-thread-index reads it once, at the entry.
TEST(Compile, LoopsReadTheThreadIndexAgain) {
  kernels::quant::PerChannelCastConfig c;
  c.hidden = 7168, c.blockM = 128, c.swiglu = true, c.transposed = true, c.roundSf = true;
  ASSERT_GT(c.stages(), 0);
  EXPECT_EQ(count(compile(c), "%tid.x;"), 2u); // the entry's and the loop's
  setenv("TK_ABLATE", "loop-thread-index", 1);
  std::string hoisted = compile(c);
  unsetenv("TK_ABLATE");
  EXPECT_EQ(count(hoisted, "%tid.x;"), 1u);
  // The schedule's reread field overrides the kernel's choice, in both
  // directions, with a key of its own.
  kernels::quant::PerChannelCastConfig rows = c;
  rows.transposed = false, rows.blockM = 32;
  EXPECT_FALSE(rows.rereadsThreadIndex());
  ASSERT_EQ(kernels::quant::perChannelCastSchedule().spec().parse("reread=1", rows), "");
  EXPECT_TRUE(rows.rereadsThreadIndex());
  EXPECT_NE(rows.key().find("|reread=1"), std::string::npos) << rows.key();
  EXPECT_EQ(count(compile(rows), "%tid.x;"), 2u);
  kernels::quant::PerChannelCastConfig off = c;
  off.rereadIndex = 0;
  EXPECT_EQ(count(compile(off), "%tid.x;"), 1u);
}

TEST(Compile, MinBlocksPerSmSetsLaunchBounds) {
  kernels::quant::PerTokenCastConfig c{7168, 128, dsl::DType::BF16, true};
  auto sm90 = *compiler::findTarget("sm_90a");
  std::string normalKey = cacheKey(c.key(), sm90);
  EXPECT_EQ(count(compile(c, "sm_90a"), ".minnctapersm"), 0u);
  setenv("TK_MIN_BLOCKS_PER_SM", "4", 1);
  EXPECT_EQ(count(compile(c, "sm_90a"), ".minnctapersm 4"), 1u);
  EXPECT_NE(cacheKey(c.key(), sm90), normalKey);
  setenv("TK_MIN_BLOCKS_PER_SM", "99", 1);
  std::string error = compileError(c);
  EXPECT_NE(error.find("TK_MIN_BLOCKS_PER_SM must be 0 to 32, got 99"), std::string::npos) << error;
  unsetenv("TK_MIN_BLOCKS_PER_SM");
  EXPECT_EQ(cacheKey(c.key(), sm90), normalKey);
  // A schedule field asks for it per kernel (mhc_pre_norm_fn's forward: `blocks`), with a key of its own; the
  // backward's kernels refuse it.
  kernels::mhc::NormFnConfig fwd;
  fwd.width = 1024;
  auto build = [](const kernels::mhc::NormFnConfig &n) {
    return [n](mlir::MLIRContext &ctx) { return kernels::mhc::buildNormFn(ctx, n); };
  };
  EXPECT_EQ(count(compileKernel(build(fwd)), ".minnctapersm 2"), 1u); // the forward's default
  ASSERT_EQ(kernels::mhc::normFnSchedule(false).spec().parse("blocks=3", fwd), "");
  EXPECT_NE(fwd.key().find("blocks=3"), std::string::npos) << fwd.key();
  EXPECT_EQ(count(compileKernel(build(fwd)), ".minnctapersm 3"), 1u);
  kernels::mhc::NormFnConfig slab;
  slab.stage = kernels::mhc::NormFnStage::Slab, slab.width = 1024, slab.blocks = 3;
  runtime::ScheduleSettings settings;
  runtime::ScheduleChoice choice;
  runtime::Status refused = kernels::mhc::normFnSchedule(true).choose(settings, sm90, slab, choice);
  EXPECT_NE(refused.message().find("stages, splits, blocks and wgmma are the forward's"), std::string::npos)
      << refused.message();
}

// mhc_pre_norm_fn's forward runs its product as wgmma on sm_90a by default and as mma.sync elsewhere; `wgmma=0`
// (a key of its own) asks for mma.sync on sm_90a too.
TEST(Compile, NormFnForwardTakesWgmmaOnSm90a) {
  kernels::mhc::NormFnConfig fwd;
  fwd.width = 1024;
  auto build = [](const kernels::mhc::NormFnConfig &n) {
    return [n](mlir::MLIRContext &ctx) { return kernels::mhc::buildNormFn(ctx, n); };
  };
  for (const char *target : {"sm_80", "sm_90a", "sm_100a"}) {
    const std::string ptx = compileKernel(build(fwd), target);
    const bool sm90 = std::string(target) == "sm_90a";
    EXPECT_EQ(count(ptx, "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32") > 0, sm90) << target;
    EXPECT_EQ(count(ptx, "mma.sync.aligned.m16n8k8") > 0, !sm90) << target;
  }
  const std::string defaultKey = fwd.key();
  ASSERT_EQ(kernels::mhc::normFnSchedule(false).spec().parse("wgmma=0", fwd), "");
  EXPECT_NE(fwd.key(), defaultKey);
  const std::string ptx = compileKernel(build(fwd), "sm_90a");
  EXPECT_EQ(count(ptx, "wgmma.mma_async"), 0u);
  EXPECT_GT(count(ptx, "mma.sync.aligned.m16n8k8"), 0u);
}

// An E5M6 cast stores 24 bytes per thread (runs of 16 codes, three 8-byte
// words) by default; runs of 8 (the config's e5m6Run, a key of its own)
// give 4-byte stores; a run that is not a multiple of 8 is an error.
TEST(Compile, E5M6RunsOfSixteenStoreEightByteWords) {
  kernels::quant::PerTokenCastConfig c{7168, 7168, dsl::DType::F32, true};
  c.out = kernels::quant::Format::E5M6;
  auto sm90 = *compiler::findTarget("sm_90a");
  std::string normalKey = cacheKey(c.key(), sm90);
  std::string ptx = compile(c, "sm_90a");
  EXPECT_GT(count(ptx, "st.global.b64"), 0u);
  EXPECT_EQ(count(ptx, "st.global.b32"), 1u); // the row's scale factor
  c.e5m6Run = 8;
  ptx = compile(c, "sm_90a");
  EXPECT_EQ(count(ptx, "st.global.b64"), 0u);
  EXPECT_GT(count(ptx, "st.global.b32"), 1u);
  EXPECT_NE(cacheKey(c.key(), sm90), normalKey);
  c.e5m6Run = 4;
  std::string error = compileError(c);
  EXPECT_NE(error.find("schedule: vector_elements = 4 is not a multiple of 8, which tile.pack_e5m6 needs"),
            std::string::npos)
      << error;
}

// A pipelined per-token cast (the schedule experiment's config) with each
// copy engine: cp.async groups by default, bulk copies and mbarriers with
// TK_COPY_ENGINE=bulk (a cache tag of its own), refused for sm_80 and for an
// unknown engine.
TEST(Compile, CopyEngines) {
  kernels::quant::PerTokenCastConfig c{7168, 128, dsl::DType::BF16, true};
  c.pipelineStages = 3, c.tilesPerBlock = 4;
  auto sm90 = *compiler::findTarget("sm_90a");
  std::string normalKey = cacheKey(c.key(), sm90);
  std::string cpAsync = compile(c, "sm_90a");
  EXPECT_GT(count(cpAsync, "cp.async.cg.shared.global"), 0u);
  EXPECT_EQ(count(cpAsync, "cp.async.wait_group"), 2u); // in the loop (2 pending) and after it (0)
  EXPECT_EQ(count(cpAsync, "mbarrier"), 0u);
  EXPECT_GT(count(compile(c, "sm_80"), "cp.async.cg.shared.global"), 0u);
  setenv("TK_COPY_ENGINE", "bulk", 1);
  std::string bulk = compile(c, "sm_90a");
  EXPECT_GT(count(bulk, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"), 0u);
  EXPECT_EQ(count(bulk, "mbarrier.init.shared.b64"), 3u); // one per stage
  EXPECT_GT(count(bulk, "mbarrier.try_wait.parity"), 0u);
  EXPECT_EQ(count(bulk, "cp.async.commit_group"), 0u);
  EXPECT_NE(cacheKey(c.key(), sm90), normalKey);
  runtime::CompiledKernel out;
  runtime::Status st = runtime::compileKernel(
      [c](mlir::MLIRContext &ctx) { return kernels::quant::buildPerTokenCast(ctx, c); },
      *compiler::findTarget("sm_80"), out);
  EXPECT_NE(st.message().find("TK_COPY_ENGINE=bulk needs sm_90a or newer"), std::string::npos) << st.message();
  setenv("TK_COPY_ENGINE", "tma", 1);
  std::string error = compileError(c);
  EXPECT_NE(error.find("TK_COPY_ENGINE must be cp.async or bulk, got 'tma'"), std::string::npos) << error;
  unsetenv("TK_COPY_ENGINE");
  EXPECT_EQ(cacheKey(c.key(), sm90), normalKey);
}

// A malformed module (as a broken DSL helper could build) is refused before the passes run, whether or not the
// build verifies each pass's output (TK_VERIFY_EACH_PASS).
TEST(Compile, MalformedModuleIsAnError) {
  mlir::DialectRegistry registry;
  compiler::registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  const char *source = R"mlir(
    tile.kernel @bad(%x: memref<?x256xf32>, %y: memref<?x256xf32>) attributes {threads = 64 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.grid (%b) in (%c1) {
        %v = tile.load %x[%c0] : memref<?x256xf32> -> !tile.frag<1x256xf32>
        tile.store %v, %y[%c0, %c0] : !tile.frag<1x256xf32>, memref<?x256xf32>
      }
      tile.return
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, mlir::ParserConfig(&ctx, /*verifyAfterParse=*/false));
  ASSERT_TRUE(module);
  std::string ptx, error;
  EXPECT_FALSE(
      compiler::compileToPtx(*module, *compiler::findTarget("sm_90a"), compiler::CompileOptions(), ptx, error));
  EXPECT_NE(error.find("tile.load"), std::string::npos) << error;
  EXPECT_TRUE(ptx.empty());
}

TEST(Compile, DumpsIrAfterEveryPass) {
  char dir[] = "/tmp/tk_dump_XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  setenv("TK_DUMP_IR", dir, 1);
  compile({2048, 64, dsl::DType::F32, false}, "sm_90a");
  compile({2048, 64, dsl::DType::F32, false}, "sm_80");
  compile({4096, 64, dsl::DType::F32, false}, "sm_90a");
  unsetenv("TK_DUMP_IR");
  auto count = [](const std::string &cmd) {
    FILE *p = popen(cmd.c_str(), "r");
    int n = -1;
    EXPECT_EQ(fscanf(p, "%d", &n), 1) << cmd;
    pclose(p);
    return n;
  };
  EXPECT_GT(count(std::string("grep -rl 'tile-lower-to-gpu\\|gpu.func' ") + dir + " | wc -l"), 0)
      << "no IR dumped under " << dir;
  // A folder per kernel configuration (<kernel>-<hash of its IR>; two here at least), a folder per target inside.
  EXPECT_GE(count(std::string("ls ") + dir + " | wc -l"), 2) << dir;
  EXPECT_EQ(count(std::string("ls -d ") + dir + "/*/sm_90a " + dir + "/*/sm_80 | wc -l"), 3) << dir;
}

TEST(Compile, PassTimingReportsEachPass) {
  setenv("TK_PASS_TIMING", "1", 1);
  testing::internal::CaptureStderr();
  compile({2048, 64, dsl::DType::F32, false}, "sm_90a");
  std::string report = testing::internal::GetCapturedStderr();
  unsetenv("TK_PASS_TIMING");
  // MLIR's report, naming tk's passes and the LLVM back end's one pass.
  EXPECT_NE(report.find("Execution time report"), std::string::npos) << report;
  EXPECT_NE(report.find("TileLowerToGPU"), std::string::npos) << report;
  EXPECT_NE(report.find("GpuModuleToBinaryPass"), std::string::npos) << report;
  testing::internal::CaptureStderr();
  compile({2048, 64, dsl::DType::F32, false}, "sm_90a");
  EXPECT_EQ(testing::internal::GetCapturedStderr().find("Execution time report"), std::string::npos);
}

} // namespace
