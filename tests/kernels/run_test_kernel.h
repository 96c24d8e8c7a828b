// Running a test kernel through a context, for the tests/kernels/*_kernel.h checks that run their kernel on the
// CPU path or a GPU (checks::Placement) and count the wrong elements of its outputs.
#pragma once

#include "tk/runtime/Context.h"

#include <string>
#include <vector>

namespace tk::test_kernels {

/// Runs `factory` on `tensors` through ctx (default stream); false, with the call's message in `error`, when
/// it fails.
inline bool runTestKernel(tk_context ctx, const runtime::KernelFactory &factory,
                          const std::vector<const tk_tensor *> &tensors, std::string &error) {
  runtime::Status s = ctx->run(factory, tensors, nullptr);
  if (!s.isOk())
    error = s.message();
  return s.isOk();
}

} // namespace tk::test_kernels
