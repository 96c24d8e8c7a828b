//===- AuthorApi.cpp - compile and run a kernel author's kernels ----------===//
#include "tk/compiler/Target/Targets.h"
#include "tk/dsl.hpp"
#include "tk/runtime/Context.h"
#include "tk/runtime/JitCache.h"
#include "tk/runtime/Status.h"

namespace tk {

using runtime::report;
using runtime::Status;

tk_status compile(const KernelFactory &kernel, const std::string &target, std::string &ptx) {
  return runtime::guardEntry("tk::compile", [&] {
    auto t = compiler::findTarget(target);
    if (!t)
      return report(Status::invalid("tk::compile: unknown target '" + target + "' (sm_80, sm_90a, sm_100a)"));
    if (!kernel.build)
      return report(Status::invalid("tk::compile: the kernel factory has no build function"));
    runtime::CompiledKernel out;
    Status s = runtime::compileKernel(kernel, *t, out);
    if (s.isOk())
      ptx = std::move(out.ptx);
    return report(s);
  });
}

tk_status run(tk_context ctx, const KernelFactory &kernel, const std::vector<const tk_tensor *> &tensors,
              tk_stream stream, const std::vector<int64_t> &scalars) {
  return runtime::guardEntry("tk::run", [&] {
    if (!ctx)
      return report(Status::invalid("tk::run: ctx is null"));
    if (!kernel.build)
      return report(Status::invalid("tk::run: the kernel factory has no build function"));
    return report(ctx->run(kernel, tensors, stream, scalars));
  });
}

int64_t f32Bits(float value) { return runtime::f32Scalar(value); }

} // namespace tk
