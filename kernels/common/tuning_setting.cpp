//===- tuning_setting.cpp -------------------------------------------------===//
#include "kernels/common/tuning_setting.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tk::kernels {

std::string readPipelineSetting(const char *var, int64_t stageBytes, int64_t &stages, int64_t &tiles) {
  const char *env = std::getenv(var);
  if (!env || !*env)
    return "";
  long long s = 0, t = 0;
  char end = 0;
  if (std::sscanf(env, "%lldx%lld%c", &s, &t, &end) != 2)
    return std::string(var) + " must be STAGESxTILES, got '" + env + "'";
  if (s == 0 && t == 0) {
    stages = 0, tiles = 1;
    return "";
  }
  if (s < 1 || s > 8 || t < 1 || t > 64)
    return std::string(var) + " '" + env + "': 1 to 8 stages and 1 to 64 tiles per CTA (0x0: off)";
  if (stageBytes > kPipelineSharedBytes)
    return std::string(var) + " '" + env + "': one stage takes " + std::to_string(stageBytes) +
           " bytes of shared memory, over " + std::to_string(kPipelineSharedBytes);
  stages = std::min<int64_t>(s, kPipelineSharedBytes / stageBytes), tiles = t;
  return "";
}

std::string readIntSetting(const char *var, int64_t lo, int64_t hi, const char *what, int64_t &value) {
  const char *env = std::getenv(var);
  if (!env || !*env)
    return "";
  long long v = 0;
  char end = 0;
  if (std::sscanf(env, "%lld%c", &v, &end) != 1 || v < lo || v > hi)
    return std::string(var) + " must be " + std::to_string(lo) + " to " + std::to_string(hi) + " " + what +
           ", got '" + env + "'";
  value = v;
  return "";
}

} // namespace tk::kernels
