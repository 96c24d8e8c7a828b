// Dependent launch as an operator's schedule asks (its `pdl` field): 2 (the
// wait, no early signal) by default for every operator that declares it, 1
// with the signal, 0 plain, never on sm_80; and big_fuse's later kernels as
// its norm_fn kernels resolve it.
#include "kernels/moe/fused_mapping_kernels.h"
#include "kernels/moe/histogram.h"
#include "kernels/registry.h"
#include "tk/compiler/Target/CompileOptions.h"
#include "tk/runtime/JitCache.h"

#include <gtest/gtest.h>

using namespace tk;
using namespace tk::kernels::moe;

namespace {

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

template <typename Config, typename Build>
std::string compile(const Config &c, Build build, const std::string &target = "sm_90a") {
  runtime::CompiledKernel out;
  runtime::Status s = runtime::compileKernel([c, build](mlir::MLIRContext &ctx) { return build(ctx, c); },
                                             *compiler::findTarget(target), out);
  EXPECT_TRUE(s.isOk()) << s.message();
  return out.ptx;
}

HistogramConfig counting(int64_t pdl) {
  HistogramConfig c;
  c.stage = HistogramConfig::Stage::Count, c.pdl = pdl;
  return c;
}

} // namespace

TEST(ScheduleDependentLaunch, GroupCountWaitsWithoutTheSignalByDefault) {
  for (const char *target : {"sm_90a", "sm_100a"}) {
    std::string ptx = compile(counting(-1), buildHistogram, target);
    EXPECT_TRUE(compiler::dependentLaunch(ptx, "group_count")) << target;
    EXPECT_EQ(count(ptx, "griddepcontrol.launch_dependents;"), 0u) << target;
    EXPECT_EQ(count(ptx, "griddepcontrol.wait;"), 1u) << target;
  }
  EXPECT_EQ(compile(counting(-1), buildHistogram), compile(counting(2), buildHistogram));
}

TEST(ScheduleDependentLaunch, OneSignalsAtTheStartAndZeroIsPlain) {
  std::string early = compile(counting(1), buildHistogram), plain = compile(counting(0), buildHistogram);
  EXPECT_TRUE(compiler::dependentLaunch(early, "group_count"));
  EXPECT_EQ(count(early, "griddepcontrol.launch_dependents;"), 1u);
  EXPECT_EQ(count(early, "griddepcontrol.wait;"), 1u);
  EXPECT_FALSE(compiler::dependentLaunch(plain, "group_count"));
  EXPECT_EQ(count(plain, "griddepcontrol"), 0u);
  // Each choice is its own kernel to the caches.
  EXPECT_NE(counting(0).key(), counting(1).key());
  EXPECT_NE(counting(0).key(), counting(-1).key());
}

TEST(ScheduleDependentLaunch, NeverOnSm80) {
  std::string ptx = compile(counting(-1), buildHistogram, "sm_80");
  EXPECT_FALSE(compiler::dependentLaunch(ptx, "group_count"));
  EXPECT_EQ(count(ptx, "griddepcontrol"), 0u);
}

// Every kernel of a mapping call waits by default; none lets the next in early.
TEST(ScheduleDependentLaunch, FusedMappingWaitsUnlessToldNot) {
  FusedMappingConfig c;
  for (auto stage :
       {FusedMappingConfig::Stage::Count, FusedMappingConfig::Stage::Offsets, FusedMappingConfig::Stage::Place}) {
    c.stage = stage, c.pdl = -1;
    std::string ptx = compile(c, buildFusedMapping);
    EXPECT_EQ(count(ptx, "griddepcontrol.wait;"), 1u) << (int)stage;
    EXPECT_EQ(count(ptx, "griddepcontrol.launch_dependents;"), 0u) << (int)stage;
  }
  c.stage = FusedMappingConfig::Stage::Count, c.pdl = 0;
  EXPECT_EQ(count(compile(c, buildFusedMapping), "griddepcontrol"), 0u);
}

TEST(ScheduleDependentLaunch, TheFieldTakesZeroToTwo) {
  HistogramConfig c;
  EXPECT_EQ(histogramSchedule().spec().parse("pdl=2", c), "");
  EXPECT_EQ(c.pdl, 2);
  EXPECT_NE(histogramSchedule().spec().parse("pdl=3", c).find("pdl must be 0..2"), std::string::npos);
  EXPECT_EQ(c.pdl, 2);
}

// tk compile's variants of big_fuse's mixes and apply kernels take the pdl norm_fn's forward resolves, as a call does.
TEST(ScheduleDependentLaunch, BigFuseFollowsNormFn) {
  auto variant = [](const std::string &name) {
    for (const auto &k : kernels::shippedKernels())
      for (const auto &v : k.variants)
        if (v.name == name)
          return v.build;
    ADD_FAILURE() << name;
    return runtime::KernelFactory{};
  };
  for (const char *name : {"mhc_pre_big_fuse_mixes.n4.r10", "mhc_pre_big_fuse.n4.h7168"}) {
    runtime::KernelFactory f = variant(name);
    runtime::CompiledKernel on, off;
    ASSERT_TRUE(runtime::compileKernel(f, *compiler::findTarget("sm_90a"), on).isOk()) << name;
    EXPECT_EQ(count(on.ptx, "griddepcontrol.wait;"), 1u) << name;
    setenv("TK_SCHEDULE", "mhc_pre_norm_fn_fwd:pdl=0", 1);
    runtime::Status s = runtime::compileKernel(f, *compiler::findTarget("sm_90a"), off);
    unsetenv("TK_SCHEDULE");
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(count(off.ptx, "griddepcontrol"), 0u) << name;
  }
}
