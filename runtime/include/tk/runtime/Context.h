//===- Context.h - what a tk_context holds --------------------------------===//
#pragma once

#include "tk/runtime/Device.h"
#include "tk/runtime/JitCache.h"
#include "tk/runtime/Launcher.h"

#include <optional>

struct tk_context_s {
  tk::runtime::JitCache cache;
  /// Forces a target instead of the device's own (TK_TARGET, or tests).
  std::optional<tk::compiler::Target> targetOverride;

  /// Binds the device on first use and picks its target.
  tk::runtime::Status ensureDevice();
  /// Compiles (cached) and launches the kernel `kernelKey` built by `factory`.
  tk::runtime::Status run(const std::string &kernelKey, const tk::runtime::KernelFactory &factory,
                          const std::vector<const tk_tensor *> &tensors, tk_stream stream);

  const tk::runtime::Driver *driver = nullptr;
  tk::runtime::DeviceInfo device;
  std::optional<tk::compiler::Target> target;
};
