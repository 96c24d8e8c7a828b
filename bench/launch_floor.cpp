//===- launch_floor.cpp ---------------------------------------------------===//
#include "bench/launch_floor.h"
#include "tk/dsl/KernelBuilder.h"
#include "tk/runtime/Context.h"

namespace tk::bench {

namespace {
dsl::BuiltKernel buildEmptyKernel(mlir::MLIRContext &ctx) {
  using namespace tk::dsl;
  KernelBuilder k(ctx, "empty_kernel", 32);
  Dim n = k.dynamic("n");
  k.input("unused", {n}, DType::I32); // a launch needs an argument to bind its grid's size to
  k.grid({Dim(1)}, [](const std::vector<Index> &) {});
  return k.finish();
}
} // namespace

double emptyKernelUs(checks::GpuSession &gpu, tk_context ctx) {
  void *buf = gpu.alloc(4);
  tk_tensor t = checks::deviceTensor(buf, TK_I32, {1});
  const runtime::KernelFactory factory = runtime::factoryOf(buildEmptyKernel);
  if (!ctx->run(factory, {&t}, nullptr).isOk())
    return -1;
  return 1000.0 * gpu.medianMs([&] { (void)ctx->run(factory, {&t}, nullptr); }, 5, 50);
}

} // namespace tk::bench
