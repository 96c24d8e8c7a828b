//===- Targets.h - the GPU targets tk compiles for ------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tk::compiler {

struct Target {
  std::string name;        ///< "sm_90a": what users type, what ptxas -arch takes
  std::string chip;        ///< LLVM NVPTX CPU
  std::string ptxFeatures; ///< LLVM NVPTX features (PTX ISA version)
  int vectorBytes;         ///< widest per-thread global access
  bool fp8Conversion;      ///< cvt.satfinite e4m3x2 available (sm_89+)
  int computeCapability;   ///< 80, 90, 100
  /// tile.silu / tile.sigmoid may take the multiply-and-correct division
  /// (tile-logistic-quotients): checked against div.rn.f32 for every f32
  /// input on a device of this target (it rests on the hardware rcp.approx).
  bool multiplyAndCorrectQuotients;
  /// The most shared memory one block may have (the opt-in limit, bytes);
  /// 0 on the CPU path (no limit).
  int64_t maxSharedBytes;
  /// wgmma (sm_90a only: sm_100a's tensor cores take tcgen05 instead).
  bool warpgroupMma = false;
};

/// sm_80, sm_90a, sm_100a.
const std::vector<Target> &supportedTargets();
/// What kernels are built for on the CPU path (tile-lower-to-cpu ignores
/// layouts; schedules that depend on a target see 16-byte accesses).
const Target &cpuTarget();
std::optional<Target> findTarget(const std::string &name);
/// The best target for a device of compute capability major.minor, if any.
std::optional<Target> targetForDevice(int major, int minor);

} // namespace tk::compiler
