//===- registry.h - the operators tk ships, registered by their own files --===//
//
// Each operator's entry-point file (kernels/<family>/<unit>_api.cpp) ends with
//
//   TK_REGISTER_OPERATORS(<unit>) {
//     registerOperator({"<op>", "<family>", "tk_<op>", "summary", {variants...}});
//     registerSchedule(<op>Schedule());   // when its kernel has a schedule
//   }
//
// The build lists every *_api.cpp of tk_kernels and calls these functions
// (a file generated from the source list), so adding the file to
// kernels/CMakeLists.txt is all it takes; a file without its registration is a
// link error naming it.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/runtime/JitCache.h"

#include <string>
#include <vector>

namespace tk::kernels {

class ScheduledOperator;

/// One representative configuration of a kernel (what `tk compile` emits).
struct KernelVariant {
  std::string name; ///< file-name safe: per_token_cast.bf16.k7168.g128
  runtime::KernelFactory build;
  /// Shared memory (bytes) the variant needs: a target that allows less
  /// (sm_80's 163 KB) does not build it, and the tools say so (0: any).
  int64_t sharedBytes = 0;
  /// Whether `target` can hold the variant's shared memory.
  bool fits(const compiler::Target &target) const {
    return sharedBytes <= 0 || target.maxSharedBytes <= 0 || sharedBytes <= target.maxSharedBytes;
  }
  /// Why `target` cannot build the variant, for the tools' skip line ("" when it can).
  std::string whyNot(const compiler::Target &target) const {
    return fits(target) ? ""
                        : "needs " + std::to_string(sharedBytes) + " bytes of shared memory, " + target.name +
                              " allows " + std::to_string(target.maxSharedBytes);
  }
};

struct ShippedKernel {
  std::string name;   ///< reference operator name
  std::string family; ///< quant, moe, transpose, mhc, engram
  std::string entry;  ///< C API entry point
  std::string summary;
  std::vector<KernelVariant> variants;
};

/// Every registered operator, in the order of kernels/CMakeLists.txt's sources.
const std::vector<ShippedKernel> &shippedKernels();

/// Called from TK_REGISTER_OPERATORS bodies only (under the registry's lock).
void registerOperator(ShippedKernel kernel);
void registerSchedule(const ScheduledOperator &schedule);

} // namespace tk::kernels

#define TK_REGISTER_OPERATORS(unit)                                                                                   \
  namespace tk::kernels::registration {                                                                              \
  void register_##unit();                                                                                            \
  }                                                                                                                  \
  void tk::kernels::registration::register_##unit()
