//===- tuning_setting.cpp -------------------------------------------------===//
#include "kernels/common/tuning_setting.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tk::kernels {

std::string SizesSetting::unusable(const char *var, const std::string &why) const {
  return std::string(var) + " '" + text + "': " + why;
}

std::string readSizesSetting(const char *var, const char *form, SizesSetting &setting) {
  setting = {};
  const char *env = std::getenv(var);
  if (!env || !*env)
    return "";
  const size_t count = std::count(form, form + std::strlen(form), 'x') + 1;
  const char *p = env;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0 && *p++ != 'x')
      break;
    char *end = nullptr;
    if (!std::isdigit((unsigned char)*p))
      break;
    setting.values.push_back(std::strtoll(p, &end, 10));
    p = end;
  }
  if (setting.values.size() != count || *p)
    return std::string(var) + " must be " + form + ", got '" + env + "'";
  setting.text = env;
  return "";
}

bool isPowerOfTwoIn(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi && (v & (v - 1)) == 0; }

std::string readPipelineSetting(const char *var, int64_t stageBytes, int64_t &stages, int64_t &tiles) {
  SizesSetting set;
  if (std::string error = readSizesSetting(var, "STAGESxTILES", set); !error.empty() || set.text.empty())
    return error;
  const int64_t s = set.values[0], t = set.values[1];
  if (s == 0 && t == 0) {
    stages = 0, tiles = 1;
    return "";
  }
  if (s < 1 || s > 8 || t < 1 || t > 64)
    return set.unusable(var, "1 to 8 stages and 1 to 64 tiles per CTA (0x0: off)");
  if (stageBytes > kPipelineSharedBytes)
    return set.unusable(var, "one stage takes " + std::to_string(stageBytes) + " bytes of shared memory, over " +
                                 std::to_string(kPipelineSharedBytes));
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

std::string readPowerOfTwoSetting(const char *var, int64_t lo, int64_t hi, const char *what, int64_t &value) {
  const char *env = std::getenv(var);
  if (!env || !*env)
    return "";
  int64_t v = 0;
  if (std::string error = readIntSetting(var, lo, hi, what, v); !error.empty())
    return error;
  if (!isPowerOfTwoIn(v, lo, hi))
    return std::string(var) + " must be a power of two from " + std::to_string(lo) + " to " + std::to_string(hi) +
           " " + what + ", got " + std::to_string(v);
  value = v;
  return "";
}

} // namespace tk::kernels
