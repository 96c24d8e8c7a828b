//===- CompileOptions.h - the options that change code, and PTX headers --===//
//
// Plain C++ (no MLIR): what the runtime reads to key and load kernels, also
// in libtk_rt, which loads bundled kernels and compiles none.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/Target/Targets.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tk::compiler {

struct CompileOptions {
  /// Directory to write the IR after every pass into (TK_DUMP_IR), one folder
  /// per kernel configuration and target inside it; empty: none.
  std::string dumpIrDir;
  /// Print the PTX to stderr (TK_PRINT_KERNEL_SOURCE=1).
  bool printKernelSource = false;
  /// Print vectorization remarks to stderr (TK_REMARKS=1).
  bool remarks = false;
  /// Print each pass's time to stderr after each compilation (TK_PASS_TIMING=1;
  /// the LLVM back end is the one pass gpu-module-to-binary).
  bool passTiming = false;
  /// Passes switched off for an ablation study (TK_ABLATE=a,b): "vectorize"
  /// (4-byte accesses instead of the target's 16 or 32), "fp8-hardware"
  /// (e4m3 conversion by integer arithmetic instead of cvt instructions) and
  /// "pipeline" (tile.pipeline loops with one stage: each copy waits for itself),
  /// "swizzle" (transposes' shared buffers with padded rows), "layout-inference"
  /// (default layouts, tile.relayout through shared memory where an op needs
  /// another) and "fusion" (every computed fragment through shared memory
  /// before its uses).
  std::vector<std::string> ablate;
  /// Launch bounds for a register experiment (TK_MIN_BLOCKS_PER_SM=n): every
  /// kernel asks ptxas to fit n blocks per SM (fewer registers, maybe spills).
  /// 0: none.
  int64_t minBlocksPerSm = 0;
  /// The copy engine of tile.pipeline loops (TK_COPY_ENGINE): "cp.async"
  /// (the default, every target) or "bulk" (cp.async.bulk rows signalling
  /// mbarriers; sm_90a and newer).
  std::string copyEngine = "cp.async";
  /// Values of a thread under one range check of a lone division by
  /// 1 + exp(-x) (TK_LOGISTIC_GUARD=1, 2, 4, ... 64; tile-logistic-quotients),
  /// a tuning experiment: fewer values per check, shorter straight-line
  /// stretches (fewer registers), more branches. 0: all of them.
  int64_t logisticGuard = 0;
  /// The smallest element size whose transposes get an XOR-swizzled shared
  /// buffer (TK_SWIZZLE_BYTES=1, 2 or 4), a tuning experiment; 0: the
  /// pass's default (1: every element size; 2 gives e4m3 transposes padded
  /// rows, their earlier layout).
  int64_t swizzleBytes = 0;
  /// Every kernel's read-only tensors as noalias read-only memory
  /// (ld.global.nc), as if each schedule asked for readonly_loads; set by
  /// tk-opt's tile-to-ptx{readonly-loads=true} and tests, not the
  /// environment (timed: no shipped kernel gained, docs/design.md).
  bool readonlyLoads = false;
  /// Programmatic dependent launch on sm_90a and sm_100a for every kernel, as
  /// if each schedule asked for dependent_launch = 1; set by tk-opt's
  /// tile-to-ptx{dependent-launch=true} and tests, not the environment:
  /// operators ask for it through their schedule's `pdl` (docs/design.md).
  bool dependentLaunch = false;
  /// Reads TK_DUMP_IR, TK_PRINT_KERNEL_SOURCE, TK_REMARKS, TK_PASS_TIMING, TK_ABLATE,
  /// TK_MIN_BLOCKS_PER_SM, TK_COPY_ENGINE, TK_LOGISTIC_GUARD,
  /// and TK_SWIZZLE_BYTES.
  static CompileOptions fromEnvironment();
  /// Empty, or a note that separates ablated kernels in caches ("ablate=...",
  /// "minblocks=n", "engine=bulk").
  std::string cacheTag() const;
  /// The names TK_ABLATE accepts.
  static const std::vector<std::string> &ablations();
  /// "" when every setting is valid for `target`, else the first problem,
  /// named by its environment variable (an unknown TK_ABLATE pass, with the
  /// known ones; an out-of-range TK_LOGISTIC_GUARD, ...).
  std::string problem(const Target &target) const;
};

/// The bytes of dynamic shared memory kernel `kernel` of `ptx` (from
/// compileToPtx) launches with; 0 for a kernel whose shared memory is static.
int64_t dynamicSharedBytes(const std::string &ptx, const std::string &kernel);
/// The PTX comment line compileToPtx writes first for a kernel with dynamic
/// shared memory: this, the kernel's name, a space and the bytes.
inline constexpr const char *kDynamicSharedMemoryHeader = "// tk.dynamic_shared_memory ";
/// Whether kernel `kernel` of `ptx` waits for the kernel before it at its
/// start (tile-dependent-launch), so that it may be launched with
/// programmatic stream serialization.
bool dependentLaunch(const std::string &ptx, const std::string &kernel);
/// The PTX comment line compileToPtx writes for such a kernel: this and the
/// kernel's name.
inline constexpr const char *kDependentLaunchHeader = "// tk.dependent_launch ";

} // namespace tk::compiler
