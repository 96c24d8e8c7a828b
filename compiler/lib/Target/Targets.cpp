//===- Targets.cpp --------------------------------------------------------===//
#include "tk/compiler/Target/Targets.h"

namespace tk::compiler {

const std::vector<Target> &supportedTargets() {
  static const std::vector<Target> targets = {
      // Shared memory per block: 163 KB on A100, 227 KB on H100/H200 and B200
      // (CUDA C Programming Guide, compute capabilities table).
      {"sm_80", "sm_80", "+ptx80", 16, false, 80, false, 166912},
      {"sm_90a", "sm_90a", "+ptx80", 16, true, 90, true, 232448, true}, // LogisticDivisionGpu, on an H200
      {"sm_100a", "sm_100a", "+ptx86", 32, true, 100, false, 232448},
  };
  return targets;
}

const Target &cpuTarget() {
  static const Target cpu = {"cpu", "", "", 16, false, 0, false, 0};
  return cpu;
}

std::optional<Target> findTarget(const std::string &name) {
  for (const Target &t : supportedTargets())
    if (t.name == name)
      return t;
  return std::nullopt;
}

std::optional<Target> targetForDevice(int major, int minor) {
  int cc = major * 10 + minor;
  if (cc >= 100 && cc < 110)
    return findTarget("sm_100a");
  if (cc == 90)
    return findTarget("sm_90a");
  // Ampere, Ada and later parts without an arch-specific target run sm_80 PTX.
  if (cc >= 80)
    return findTarget("sm_80");
  return std::nullopt;
}

} // namespace tk::compiler
