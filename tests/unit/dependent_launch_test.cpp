// How the launcher launches a kernel that waits for the kernel before it
// (tile-dependent-launch): through cuLaunchKernelEx with programmatic stream
// serialization, against a driver of stubs that records the calls; a kernel
// without the wait, or a driver without cuLaunchKernelEx or refusing the
// attribute, takes cuLaunchKernel. (On a GPU every operator's checks run through it.)
#include "tk/compiler/Target/CompileOptions.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/JitCache.h"
#include "tk/runtime/Launcher.h"
#include "tk/tk.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tk;
using namespace tk::dsl;

namespace {

struct Calls {
  int plain = 0, ex = 0;
  runtime::LaunchConfig config{};
  runtime::LaunchAttribute attr{};
  runtime::CUresult exResult = 0, plainResult = 0;
};
Calls calls;

runtime::CUresult launchKernel(runtime::CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, runtime::CUstream, void **, void **) {
  return ++calls.plain, calls.plainResult;
}
runtime::CUresult launchKernelEx(const runtime::LaunchConfig *config, runtime::CUfunction, void **, void **) {
  ++calls.ex;
  calls.config = *config;
  if (config->numAttrs == 1)
    calls.attr = config->attrs[0];
  return calls.exResult;
}
runtime::CUresult errorString(runtime::CUresult, const char **s) { return *s = "stub error", 0; }

runtime::Driver stubs(bool withEx) {
  runtime::Driver d{};
  d.cuLaunchKernel = launchKernel, d.cuGetErrorString = errorString;
  if (withEx)
    d.cuLaunchKernelEx = launchKernelEx;
  return d;
}

/// y = x + 1 over rows of 256, 4 rows a block, compiled for `target` with dependent launch on, and the launcher's
/// view of its PTX header.
runtime::CompiledKernel addOne(const char *target) {
  runtime::CompiledKernel k;
  auto factory = [](mlir::MLIRContext &ctx) {
    KernelBuilder k(ctx, "add_one", 128);
    k.dependentLaunch();
    Dim rows = k.dynamic("rows");
    Tensor x = k.input("x", {rows, 256}, DType::F32);
    Tensor y = k.output("y", {rows, 256}, DType::F32);
    k.grid({ceil_div(rows, 4)}, [&](const std::vector<Index> &b) {
      k.store(y, {b[0] * 4, k.index(0)}, k.load(x, {b[0] * 4, k.index(0)}, {4, 256}) + 1.0);
    });
    return k.finish();
  };
  runtime::Status s = runtime::compileKernel(factory, *compiler::findTarget(target), k);
  EXPECT_TRUE(s.isOk()) << s.message();
  k.dependentLaunch = compiler::dependentLaunch(k.ptx, k.signature.name);
  k.function = reinterpret_cast<runtime::CUfunction>(uintptr_t(0x40));
  return k;
}

tk_tensor rows(int64_t n, int i) {
  tk_tensor t{};
  t.data = reinterpret_cast<void *>((uintptr_t)(i + 1) << 40); // never dereferenced
  t.dtype = TK_F32, t.ndim = 2, t.shape[0] = n, t.shape[1] = 256, t.strides[0] = 256, t.strides[1] = 1;
  t.device = TK_DEVICE_CUDA;
  return t;
}

class DependentLaunch : public ::testing::Test {
protected:
  void SetUp() override { calls = {}; }
};

TEST_F(DependentLaunch, WaitingKernelsLaunchWithProgrammaticStreamSerialization) {
  runtime::CompiledKernel k = addOne("sm_90a");
  ASSERT_TRUE(k.dependentLaunch);
  tk_tensor x = rows(37, 0), y = rows(37, 1);
  auto stream = reinterpret_cast<runtime::CUstream>(uintptr_t(0x700));
  runtime::Driver d = stubs(true);
  ASSERT_TRUE(runtime::launch(d, k, {&x, &y}, stream, 132, {}).isOk());
  EXPECT_EQ(calls.ex, 1);
  EXPECT_EQ(calls.plain, 0);
  EXPECT_EQ(calls.config.gridDimX, 10u); // ceil(37 / 4)
  EXPECT_EQ(calls.config.gridDimY, 1u);
  EXPECT_EQ(calls.config.blockDimX, 128u);
  EXPECT_EQ(calls.config.hStream, stream);
  ASSERT_EQ(calls.config.numAttrs, 1u);
  EXPECT_EQ(calls.attr.id, runtime::kLaunchAttrProgrammaticStreamSerialization);
  EXPECT_EQ(calls.attr.value.programmaticStreamSerializationAllowed, 1);
}

TEST_F(DependentLaunch, OtherKernelsAndOlderDriversTakeCuLaunchKernel) {
  tk_tensor x = rows(8, 0), y = rows(8, 1);
  runtime::Driver withEx = stubs(true), without = stubs(false);
  runtime::CompiledKernel sm80 = addOne("sm_80");
  EXPECT_FALSE(sm80.dependentLaunch);
  ASSERT_TRUE(runtime::launch(withEx, sm80, {&x, &y}, nullptr, 132, {}).isOk());
  EXPECT_EQ(calls.plain, 1);
  EXPECT_EQ(calls.ex, 0);
  ASSERT_TRUE(runtime::launch(without, addOne("sm_90a"), {&x, &y}, nullptr, 132, {}).isOk());
  EXPECT_EQ(calls.plain, 2);
  EXPECT_EQ(calls.ex, 0);
}

TEST_F(DependentLaunch, ARefusedAttributeFallsBackToAPlainLaunch) {
  calls.exResult = 801; // CUDA_ERROR_NOT_SUPPORTED
  tk_tensor x = rows(8, 0), y = rows(8, 1);
  runtime::Driver d = stubs(true);
  runtime::CompiledKernel k = addOne("sm_90a");
  runtime::Status s = runtime::launch(d, k, {&x, &y}, nullptr, 132, {});
  EXPECT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(calls.ex, 1);
  EXPECT_EQ(calls.plain, 1);
  // Both refused: the plain launch's error, naming the kernel.
  calls.plainResult = 1; // CUDA_ERROR_INVALID_VALUE
  s = runtime::launch(d, k, {&x, &y}, nullptr, 132, {});
  EXPECT_EQ(s.code(), TK_ERROR_LAUNCH);
  EXPECT_NE(s.message().find("cuLaunchKernel failed: stub error"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("add_one"), std::string::npos) << s.message();
}

} // namespace
