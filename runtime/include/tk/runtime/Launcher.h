//===- Launcher.h - bind tensors to a kernel's signature and launch it ----===//
#pragma once

#include "tk/runtime/Driver.h"
#include "tk/runtime/JitCache.h"

#include <map>
#include <vector>

namespace tk::runtime {

/// Checks `tensors` against the signature (dtypes, ranks, static sizes, the
/// consistency of dynamic sizes, static strides, alignment) and binds the
/// dynamic sizes. Needs no device.
Status bindTensors(const dsl::KernelSignature &sig, const std::vector<const tk_tensor *> &tensors,
                   std::map<std::string, int64_t> &symbols);

/// Binds, evaluates the grid and launches on `stream`. A grid with no block
/// launches nothing and succeeds.
Status launch(const Driver &driver, const CompiledKernel &kernel, const std::vector<const tk_tensor *> &tensors,
              CUstream stream);

} // namespace tk::runtime
