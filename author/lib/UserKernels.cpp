//===- UserKernels.cpp - the kernels a program registers for its tooling --===//
#include "tk/dsl.hpp"
#include "tk/runtime/Status.h"

#include <cctype>
#include <mutex>

namespace tk {

using runtime::report;
using runtime::Status;

static std::mutex &registryMutex() {
  static std::mutex m;
  return m;
}

static std::vector<UserKernel> &registry() {
  static std::vector<UserKernel> kernels;
  return kernels;
}

/// File-name safe: `compile` writes DIR/<variant>.<target>.ptx.
static bool safeName(const std::string &s) {
  if (s.empty() || s[0] == '.' || s[0] == '-')
    return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-'))
      return false;
  return true;
}

tk_status registerKernel(UserKernel kernel) {
  return runtime::guardEntry("tk::registerKernel", [&] {
    const std::string what = "tk::registerKernel: ";
    if (!safeName(kernel.name))
      return report(Status::invalid(what + "the kernel name '" + kernel.name +
                                    "' must be non-empty letters, digits, '_', '.' or '-'"));
    if (kernel.variants.empty())
      return report(Status::invalid(what + "kernel '" + kernel.name + "' has no variants"));
    std::lock_guard<std::mutex> lock(registryMutex());
    for (const auto &[name, factory] : kernel.variants) {
      if (!safeName(name))
        return report(Status::invalid(what + "kernel '" + kernel.name + "': the variant name '" + name +
                                      "' must be non-empty letters, digits, '_', '.' or '-'"));
      if (!factory.build)
        return report(
            Status::invalid(what + "kernel '" + kernel.name + "': variant '" + name + "' has no build function"));
    }
    for (size_t i = 0; i < kernel.variants.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (kernel.variants[i].first == kernel.variants[j].first)
          return report(Status::invalid(what + "kernel '" + kernel.name + "' has two variants named '" +
                                        kernel.variants[i].first + "'"));
    for (const UserKernel &k : registry()) {
      if (k.name == kernel.name)
        return report(Status::invalid(what + "a kernel named '" + kernel.name + "' is registered already"));
      for (const auto &[name, f] : k.variants)
        for (const auto &[other, g] : kernel.variants)
          if (name == other)
            return report(Status::invalid(what + "kernel '" + kernel.name + "': variant '" + other +
                                          "' is a variant of '" + k.name + "' already"));
    }
    registry().push_back(std::move(kernel));
    return report(Status::ok());
  });
}

std::vector<UserKernel> registeredKernels() {
  std::lock_guard<std::mutex> lock(registryMutex());
  return registry();
}

} // namespace tk
