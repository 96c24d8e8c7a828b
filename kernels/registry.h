//===- registry.h - the kernels tk ships ----------------------------------===//
#pragma once

#include "tk/runtime/JitCache.h"

#include <string>
#include <vector>

namespace tk::kernels {

/// One representative configuration of a kernel (what `tk compile` emits).
struct KernelVariant {
  std::string name; ///< file-name safe: per_token_cast.bf16.k7168.g128
  runtime::KernelFactory build;
};

struct ShippedKernel {
  std::string name;   ///< reference operator name
  std::string family; ///< quant, moe, transpose, mhc, engram
  std::string entry;  ///< C API entry point
  std::string summary;
  std::vector<KernelVariant> variants;
};

const std::vector<ShippedKernel> &shippedKernels();

} // namespace tk::kernels
